import { describe, expect, it } from "vitest";
import { keccak256, stringToBytes } from "viem";
import {
  EscrowJobIdError,
  escrowJobIdFromUuid,
  escrowJobIdFromWire,
  escrowJobIdToWire,
  newEscrowJobId,
  normalizeEscrowJobId,
  toEscrowJobIdHex,
} from "./escrow-id";

describe("escrowJobId", () => {
  it("makes random 32-byte ids", () => {
    const a = newEscrowJobId();
    expect(a).toMatch(/^0x[0-9a-f]{64}$/);
    expect(newEscrowJobId()).not.toBe(a);
  });

  it("derives a stable id from a job UUID, whatever its case", () => {
    const uuid = "3F2504E0-4F89-11D3-9A0C-0305E82C3301";
    expect(escrowJobIdFromUuid(uuid)).toBe(keccak256(stringToBytes(uuid.toLowerCase())));
    expect(escrowJobIdFromUuid(uuid.toLowerCase())).toBe(escrowJobIdFromUuid(uuid));
    expect(() => escrowJobIdFromUuid("not-a-uuid")).toThrow(EscrowJobIdError);
  });

  it("converts to the interface's wire object with keys 0 to 31 and back", () => {
    const hex = `0x${Array.from({ length: 32 }, (_, i) => (i * 8).toString(16).padStart(2, "0")).join("")}` as const;
    const wire = escrowJobIdToWire(hex);
    expect(Object.keys(wire)).toEqual(Array.from({ length: 32 }, (_, i) => String(i)));
    expect(wire["0"]).toBe(0);
    expect(wire["31"]).toBe(248);
    expect(JSON.parse(JSON.stringify(wire))).toEqual(wire);
    expect(escrowJobIdFromWire(wire)).toBe(hex);
    expect(toEscrowJobIdHex(wire)).toBe(hex);
    expect(toEscrowJobIdHex(hex.toUpperCase().replace("0X", "0x"))).toBe(hex);
  });

  it("refuses malformed ids in either shape", () => {
    const good = escrowJobIdToWire(newEscrowJobId());
    const missing = { ...good };
    delete missing["31"];
    for (const bad of [
      missing,
      { ...good, "32": 1 },
      { ...good, "5": 256 },
      { ...good, "5": 1.5 },
      { ...good, "5": "1" },
      null,
      [],
      "x",
    ]) {
      expect(() => escrowJobIdFromWire(bad)).toThrow(EscrowJobIdError);
    }
    for (const bad of ["0x1234", "0x" + "g".repeat(64), "1".repeat(64), "0x" + "1".repeat(66)]) {
      expect(() => normalizeEscrowJobId(bad)).toThrow(EscrowJobIdError);
    }
  });
});
