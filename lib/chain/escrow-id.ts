import { bytesToHex, hexToBytes, isHex, keccak256, stringToBytes, type Hex } from "viem";

// A job's `escrowJobId` is the 32-byte key of its deposit in the escrow contract. The interface
// shows it as an object with keys "0" to "31" (one byte each); clients and the contract use the
// 0x hex form. Helpers here convert between the two.

/** The interface's wire shape: {"0": n, ..., "31": n}, each n an integer 0-255. */
export type EscrowJobIdWire = Record<string, number>;

export class EscrowJobIdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EscrowJobIdError";
  }
}

/**
 * A fresh random id, to be stored with the job. Preferred over deriving it from the job's UUID:
 * the contract takes one deposit per id, so if someone deposits first under a job's id (the id
 * is public once the job is), the service can refund that deposit and give the job a new id.
 */
export function newEscrowJobId(): Hex {
  // Web Crypto (Node 20+ and browsers) keeps this module importable from client code.
  return bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}

/** A deterministic id: keccak256 of the job's UUID in lower case. */
export function escrowJobIdFromUuid(uuid: string): Hex {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid)) {
    throw new EscrowJobIdError(`not a UUID: ${JSON.stringify(uuid)}`);
  }
  return keccak256(stringToBytes(uuid.toLowerCase()));
}

/** Validates and lower-cases a 0x hex id of exactly 32 bytes. */
export function normalizeEscrowJobId(hex: string): Hex {
  if (!isHex(hex, { strict: true }) || hex.length !== 66) {
    throw new EscrowJobIdError(`escrowJobId must be 0x followed by 64 hex digits: ${JSON.stringify(hex)}`);
  }
  return hex.toLowerCase() as Hex;
}

export function escrowJobIdToWire(hex: string): EscrowJobIdWire {
  const bytes = hexToBytes(normalizeEscrowJobId(hex));
  const wire: EscrowJobIdWire = {};
  bytes.forEach((b, i) => {
    wire[String(i)] = b;
  });
  return wire;
}

/** The wire object back to hex; exactly the keys "0" to "31", each an integer 0-255. */
export function escrowJobIdFromWire(wire: unknown): Hex {
  if (typeof wire !== "object" || wire === null || Array.isArray(wire)) {
    throw new EscrowJobIdError('escrowJobId must be an object with keys "0" to "31"');
  }
  const entries = wire as Record<string, unknown>;
  const keys = Object.keys(entries);
  if (keys.length !== 32) throw new EscrowJobIdError(`escrowJobId must have 32 keys, got ${keys.length}`);
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    const v = entries[String(i)];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 255) {
      throw new EscrowJobIdError(`escrowJobId["${i}"] must be an integer 0-255`);
    }
    bytes[i] = v;
  }
  return bytesToHex(bytes);
}

/** Accepts either shape (hex string or wire object) and returns the hex form. */
export function toEscrowJobIdHex(id: string | EscrowJobIdWire): Hex {
  return typeof id === "string" ? normalizeEscrowJobId(id) : escrowJobIdFromWire(id);
}
