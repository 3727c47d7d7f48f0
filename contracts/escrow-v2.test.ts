// The version 2 escrow against a real anvil: whatever the operator key does, a slot pays only the
// agent its payer consented to (by a call or an EIP-712 signature, ERC-1271 wallets included) or
// the payer, and from its expiry on anyone returns it to the payer, paused or not, operator or
// none. Also: the signature attacks (another signer, a replay, an expired one, another chain or
// contract), agent moves by the agent only, the payer releasing and the agent refunding without
// the service, EIP-3009 deposits bound to their job and expiry, parts, a blacklisted agent's
// credit, reentrancy, and the fee arithmetic of version 1.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  getAddress,
  keccak256,
  parseEventLogs,
  toBytes,
  toFunctionSignature,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { abi as v1Abi } from "./artifacts/escrow";
import { abi as v2Abi, bytecode as v2Bytecode } from "./artifacts/escrow-v2";
import { abi as reentrantAbi, bytecode as reentrantBytecode } from "./artifacts/reentrant-token";
import { abi as walletAbi, bytecode as walletBytecode } from "./artifacts/test-smart-wallet";
import { abi as usdcAbi } from "./artifacts/test-usdc";
import { errorText } from "@/lib/chain/escrow/errors";
import { newEscrowJobId } from "@/lib/chain/escrow-id";
import { signUsdcPermit } from "@/lib/chain/permit";
import { startTestChain, type TestChain } from "@/lib/chain/testing";

let chain: TestChain;
let escrow: Address; // the version 2 escrow under test
let usdc: Address;
let feeBps: bigint;

const OPERATOR = 0;
const PAYER = 1;
const PAYER2 = 2;
const STRANGER = 3;
const AGENT = 6;
const AGENT_NEW = 7;
const OWNER = 8;
const FEE_RECIPIENT = 9;
const BUDGET = 200_000n; // 0.20 USDC
const DAY = 86_400n;
const ZERO: Address = "0x0000000000000000000000000000000000000000";
/** A deadline no test reaches, for assignments whose deadline is not what the test is about. */
const FAR_DEADLINE = 2n ** 40n;

const addr = (i: number) => chain.accounts[i].address;

beforeAll(async () => {
  chain = await startTestChain();
  usdc = chain.config.tokenAddress;
  // The same fee as the deployed version 1, so their arithmetic can be compared.
  feeBps = BigInt(
    await chain.publicClient.readContract({ address: chain.config.escrowAddress, abi: v1Abi, functionName: "feeBps" }),
  );
  escrow = await deployV2();
}, 30_000);

afterAll(async () => {
  await chain?.stop();
});

async function deployV2(token: Address = usdc, operator: Address = addr(OPERATOR)): Promise<Address> {
  const hash = await chain.wallet(OPERATOR).deployContract({
    abi: v2Abi,
    bytecode: v2Bytecode,
    args: [token, operator, addr(FEE_RECIPIENT), Number(feeBps), addr(OWNER)],
  });
  // Checksummed, as the contract's own answers (eip712Domain) and events carry it.
  return getAddress((await mined(hash)).contractAddress as Address);
}

async function mined(hash: Hex) {
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return receipt;
}

const balance = (who: Address) =>
  chain.publicClient.readContract({ address: usdc, abi: usdcAbi, functionName: "balanceOf", args: [who] });
const balances = (who: Address[]) => Promise.all(who.map(balance));
const read = <T>(functionName: string, args: readonly unknown[] = [], address = escrow) =>
  chain.publicClient.readContract({ address, abi: v2Abi, functionName, args } as never) as Promise<T>;

/** The chain's clock (anvil's time may run apart from the host's). */
async function now(): Promise<bigint> {
  return (await chain.publicClient.getBlock({ blockTag: "latest" })).timestamp;
}

/** Moves the chain's clock forward and mines a block at the new time. */
async function warp(seconds: bigint) {
  await chain.testClient.increaseTime({ seconds: Number(seconds) });
  await chain.testClient.mine({ blocks: 1 });
}

/** Sends a v2 call from account `from` and waits for its success. */
async function send(functionName: string, args: readonly unknown[], from = OPERATOR, address = escrow) {
  const hash = (await chain.wallet(from).writeContract({ address, abi: v2Abi, functionName, args } as never)) as Hex;
  return mined(hash);
}

/** The custom error a v2 call from `from` reverts with (simulated: nothing is sent). */
async function revertOf(functionName: string, args: readonly unknown[], from = OPERATOR, address = escrow) {
  try {
    await chain.publicClient.simulateContract({
      account: chain.wallet(from).account,
      address,
      abi: v2Abi,
      functionName,
      args,
    } as never);
  } catch (err) {
    // The token's require strings (FiatTokenV2's) arrive as Error(string): the string tells them apart.
    const revert = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    if (revert instanceof ContractFunctionRevertedError && revert.data?.errorName === "Error")
      return String(revert.data.args?.[0]);
    return errorText(err);
  }
  throw new Error(`expected ${functionName} to revert`);
}

async function deposit(payer: number, jobId: Hex, amount = BUDGET, expiresAt?: bigint) {
  const expiry = expiresAt ?? (await now()) + 30n * DAY;
  await mined(
    await chain
      .wallet(payer)
      .writeContract({ address: usdc, abi: usdcAbi, functionName: "approve", args: [escrow, amount] }),
  );
  return send("deposit", [jobId, amount, expiry], payer);
}

/** A funded slot of PAYER with AGENT assigned as its agent by the payer's own call. */
async function fundedWithAgent(amount = BUDGET, agent = addr(AGENT)) {
  const jobId = newEscrowJobId();
  await deposit(PAYER, jobId, amount);
  await send("assign", [jobId, addr(PAYER), agent, FAR_DEADLINE, "0x"], PAYER);
  return jobId;
}

async function readSlot(jobId: Hex, payer: Address = addr(PAYER)) {
  const [state, amount, agent, expiresAt, slotFeeBps, partsSettled, settledBlock, moveNonce] = await read<
    readonly [number, bigint, Address, bigint, number, bigint, bigint, bigint]
  >("getEscrow", [jobId, payer]);
  return { state, amount, agent, expiresAt, slotFeeBps, partsSettled, settledBlock, moveNonce };
}

const State = { None: 0, Funded: 1, Released: 2, Refunded: 3, Split: 4, PartsSettled: 5, RefundClaimed: 6 };

interface Domain {
  name?: string;
  version?: string;
  chainId?: number;
  verifyingContract?: Address;
}

function domainOf(overrides: Domain = {}) {
  return {
    name: "AgentWorkEscrow",
    version: "2",
    chainId: chain.config.chainId,
    verifyingContract: escrow,
    ...overrides,
  };
}

/** The payer's EIP-712 Assign signature, signed with account `signer`'s key. */
function signAssign(
  signer: number,
  message: { jobId: Hex; payer: Address; agent: Address; deadline: bigint },
  domain: Domain = {},
) {
  return privateKeyToAccount(chain.accounts[signer].privateKey).signTypedData({
    domain: domainOf(domain),
    types: {
      Assign: [
        { name: "jobId", type: "bytes32" },
        { name: "payer", type: "address" },
        { name: "agent", type: "address" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "Assign",
    message,
  });
}

/** The current agent's EIP-712 MoveAgent signature, signed with account `signer`'s key. */
function signMoveAgent(
  signer: number,
  message: { jobId: Hex; payer: Address; agent: Address; newAgent: Address; nonce: bigint; deadline: bigint },
) {
  return privateKeyToAccount(chain.accounts[signer].privateKey).signTypedData({
    domain: domainOf(),
    types: {
      MoveAgent: [
        { name: "jobId", type: "bytes32" },
        { name: "payer", type: "address" },
        { name: "agent", type: "address" },
        { name: "newAgent", type: "address" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "MoveAgent",
    message,
  });
}

/** The payer's EIP-712 Approve of the work (release what remains to `agent`), signed with `signer`'s key. */
function signApprove(signer: number, message: { jobId: Hex; payer: Address; agent: Address; deadline: bigint }) {
  return privateKeyToAccount(chain.accounts[signer].privateKey).signTypedData({
    domain: domainOf(),
    types: {
      Approve: [
        { name: "jobId", type: "bytes32" },
        { name: "payer", type: "address" },
        { name: "agent", type: "address" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "Approve",
    message,
  });
}

/** The payer's EIP-3009 ReceiveWithAuthorization of `value` to the escrow, in the token's own domain. */
function signReceiveAuthorization(signer: number, value: bigint, nonce: Hex, validBefore: bigint) {
  return privateKeyToAccount(chain.accounts[signer].privateKey).signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: chain.config.chainId, verifyingContract: usdc },
    types: {
      ReceiveWithAuthorization: [
        { name: "from", type: "address" },
        { name: "to", type: "address" },
        { name: "value", type: "uint256" },
        { name: "validAfter", type: "uint256" },
        { name: "validBefore", type: "uint256" },
        { name: "nonce", type: "bytes32" },
      ],
    },
    primaryType: "ReceiveWithAuthorization",
    message: { from: addr(signer), to: escrow, value, validAfter: 0n, validBefore, nonce },
  });
}

const fee = (units: bigint) => (units * feeBps) / 10_000n;

async function blacklist(who: Address, on: boolean) {
  await mined(
    await chain
      .wallet(OPERATOR)
      .writeContract({ address: usdc, abi: usdcAbi, functionName: "setBlacklisted", args: [who, on] }),
  );
}

describe("the decided v2 surface", () => {
  it("has every function of the decided escrow v2 surface with its exact parameters, and getEscrow's first five outputs", () => {
    const functions = v2Abi.filter((item) => item.type === "function");
    const signatures = functions.map((item) => toFunctionSignature(item));
    for (const signature of [
      "deposit(bytes32 jobId, uint256 amount, uint64 expiresAt)",
      "depositWithAuthorization(bytes32 jobId, address payer, uint256 amount, uint64 expiresAt, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
      "assign(bytes32 jobId, address payer, address agent, uint256 deadline, bytes signature)",
      "release(bytes32 jobId, address payer)",
      "releaseWithApproval(bytes32 jobId, address payer, uint256 deadline, bytes signature)",
      "refund(bytes32 jobId, address payer)",
      "settleSplit(bytes32 jobId, address payer, uint256 agentShare)",
      "releasePart(bytes32 jobId, address payer, uint256 part, uint256 amount)",
      "refundPart(bytes32 jobId, address payer, uint256 part, uint256 amount)",
      "settlePartSplit(bytes32 jobId, address payer, uint256 part, uint256 amount, uint256 agentShare)",
      "claimRefund(bytes32 jobId, address payer)",
      "extendExpiry(bytes32 jobId, uint64 expiresAt)",
      "getEscrow(bytes32 jobId, address payer)",
    ]) {
      // toFunctionSignature drops the names; compare names separately so both must match.
      const [name] = signature.split("(");
      const fn = functions.find((item) => item.name === name);
      expect(fn, name).toBeDefined();
      expect(signatures).toContain(signature.replace(/ [a-zA-Z]+(?=[,)])/g, "").replace(/, /g, ","));
      const names = signature.match(/ ([a-zA-Z]+)(?=[,)])/g)?.map((n) => n.trim()) ?? [];
      expect(
        fn!.inputs.map((input) => input.name),
        name,
      ).toEqual(names);
    }
    const getEscrow = functions.find((item) => item.name === "getEscrow")!;
    expect(getEscrow.outputs.slice(0, 5).map((output) => output.type)).toEqual([
      "uint8",
      "uint256",
      "address",
      "uint64",
      "uint16",
    ]);
    expect(getEscrow.outputs.slice(0, 4).map((output) => output.name)).toEqual([
      "state",
      "amount",
      "agent",
      "expiresAt",
    ]);
  });
});

describe("deposit with an expiry the payer chooses", () => {
  it("records amount, expiry and no agent assigned yet, and says so in Deposited", async () => {
    const jobId = newEscrowJobId();
    const expiresAt = (await now()) + 10n * DAY;
    const [payerBefore, escrowBefore] = await balances([addr(PAYER), escrow]);
    const receipt = await deposit(PAYER, jobId, BUDGET, expiresAt);
    expect(payerBefore - (await balance(addr(PAYER)))).toBe(BUDGET);
    expect((await balance(escrow)) - escrowBefore).toBe(BUDGET);
    const [event] = parseEventLogs({ abi: v2Abi, eventName: "Deposited", logs: receipt.logs });
    expect(event.args).toEqual({ jobId, payer: addr(PAYER), amount: BUDGET, expiresAt });
    expect(await readSlot(jobId)).toEqual({
      state: State.Funded,
      amount: BUDGET,
      agent: ZERO,
      expiresAt,
      slotFeeBps: Number(feeBps),
      partsSettled: 0n,
      settledBlock: 0n,
      moveNonce: 0n,
    });
  });

  it("accepts an EIP-2612 permit instead of an approve", async () => {
    const jobId = newEscrowJobId();
    const permit = await signUsdcPermit({
      config: chain.config,
      privateKey: chain.accounts[PAYER2].privateKey,
      spender: escrow,
      value: BUDGET,
    });
    const expiresAt = (await now()) + 5n * DAY;
    const before = await balance(addr(PAYER2));
    await send("depositWithPermit", [jobId, BUDGET, expiresAt, permit.deadline, permit.v, permit.r, permit.s], PAYER2);
    expect(before - (await balance(addr(PAYER2)))).toBe(BUDGET);
    expect(await readSlot(jobId, addr(PAYER2))).toMatchObject({ amount: BUDGET, state: State.Funded, expiresAt });
  });

  it("takes a payer's EIP-3009 authorization relayed by anyone, bound by its nonce to the job and the expiry", async () => {
    const jobId = newEscrowJobId();
    const expiresAt = (await now()) + 9n * DAY;
    const validBefore = (await now()) + 3600n;
    const nonce = await read<Hex>("depositNonce", [jobId, expiresAt]);
    const signature = await signReceiveAuthorization(PAYER2, BUDGET, nonce, validBefore);
    // A relayer cannot put the money under another expiry or job: either the nonce no longer is
    // the one bound to what it names, or the payer's signature no longer matches it.
    const lock = expiresAt + 300n * DAY;
    expect(
      await revertOf(
        "depositWithAuthorization",
        [jobId, addr(PAYER2), BUDGET, lock, 0n, validBefore, nonce, signature],
        STRANGER,
      ),
    ).toBe("NonceNotBoundToDeposit");
    const otherJob = newEscrowJobId();
    const otherNonce = await read<Hex>("depositNonce", [otherJob, expiresAt]);
    expect(
      await revertOf(
        "depositWithAuthorization",
        [otherJob, addr(PAYER2), BUDGET, expiresAt, 0n, validBefore, otherNonce, signature],
        STRANGER,
      ),
    ).toBe("FiatTokenV2: invalid signature");

    const before = await balance(addr(PAYER2));
    const receipt = await send(
      "depositWithAuthorization",
      [jobId, addr(PAYER2), BUDGET, expiresAt, 0n, validBefore, nonce, signature],
      STRANGER,
    );
    expect(before - (await balance(addr(PAYER2)))).toBe(BUDGET);
    expect(parseEventLogs({ abi: v2Abi, eventName: "Deposited", logs: receipt.logs })[0].args).toEqual({
      jobId,
      payer: addr(PAYER2),
      amount: BUDGET,
      expiresAt,
    });
    expect(await readSlot(jobId, addr(PAYER2))).toMatchObject({ state: State.Funded, amount: BUDGET, expiresAt });
  });

  it("refuses an expiry under a day or over 400 days ahead, a zero amount or one over 128 bits, a zero job id, and a second deposit", async () => {
    const jobId = newEscrowJobId();
    const t = await now();
    await mined(
      await chain
        .wallet(PAYER)
        .writeContract({ address: usdc, abi: usdcAbi, functionName: "approve", args: [escrow, BUDGET] }),
    );
    expect(await revertOf("deposit", [jobId, BUDGET, t + DAY - 60n], PAYER)).toBe("ExpiryTooSoon");
    expect(await revertOf("deposit", [jobId, BUDGET, t + 401n * DAY], PAYER)).toBe("ExpiryTooLate");
    expect(await revertOf("deposit", [jobId, 0n, t + 2n * DAY], PAYER)).toBe("ZeroAmount");
    // A slot keeps its amount in 128 bits (docs/escrow-v2.md, "Gas"): a larger one is refused, not truncated.
    expect(await revertOf("deposit", [jobId, 2n ** 128n, t + 2n * DAY], PAYER)).toBe("SafeCastOverflowedUintDowncast");
    expect(await revertOf("deposit", [`0x${"00".repeat(32)}`, BUDGET, t + 2n * DAY], PAYER)).toBe("ZeroJobId");
    await send("deposit", [jobId, BUDGET, t + 400n * DAY - 60n], PAYER);
    expect(await revertOf("deposit", [jobId, BUDGET, t + 2n * DAY], PAYER)).toBe("AlreadyDeposited");
  });

  it("the payer extends its expiry, never shortens it, never past 400 days; nobody else can", async () => {
    const jobId = newEscrowJobId();
    const expiresAt = (await now()) + 3n * DAY;
    await deposit(PAYER, jobId, BUDGET, expiresAt);
    expect(await revertOf("extendExpiry", [jobId, expiresAt - 1n], PAYER)).toBe("ExpiryNotLater");
    expect(await revertOf("extendExpiry", [jobId, expiresAt], PAYER)).toBe("ExpiryNotLater");
    expect(await revertOf("extendExpiry", [jobId, (await now()) + 401n * DAY], PAYER)).toBe("ExpiryTooLate");
    // Anyone else's call names its own (empty) slot of the job.
    expect(await revertOf("extendExpiry", [jobId, expiresAt + DAY], OPERATOR)).toBe("NotFunded");
    const receipt = await send("extendExpiry", [jobId, expiresAt + DAY], PAYER);
    expect(parseEventLogs({ abi: v2Abi, eventName: "ExpiryExtended", logs: receipt.logs })[0].args).toEqual({
      jobId,
      payer: addr(PAYER),
      expiresAt: expiresAt + DAY,
    });
    expect((await readSlot(jobId)).expiresAt).toBe(expiresAt + DAY);
  });
});

describe("only the assigned agent or the payer", () => {
  const OPERATOR_FUNCTIONS = ["release", "refund", "settleSplit", "releasePart", "refundPart", "settlePartSplit"];

  it("no operator function takes a destination: the only address any of them names is the payer's slot", () => {
    for (const name of OPERATOR_FUNCTIONS) {
      const fn = v2Abi.find((item) => item.type === "function" && item.name === name);
      expect(fn, name).toBeDefined();
      const addresses = (fn as { inputs: readonly { name: string; type: string }[] }).inputs.filter(
        (input) => input.type === "address",
      );
      expect(
        addresses.map((input) => input.name),
        name,
      ).toEqual(["payer"]);
    }
  });

  it("before the payer assigns an agent the operator can release nothing (whole, part or split), only refund", async () => {
    const jobId = newEscrowJobId();
    await deposit(PAYER, jobId);
    expect(await revertOf("release", [jobId, addr(PAYER)])).toBe("AgentNotAssigned");
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 0n, 1n])).toBe("AgentNotAssigned");
    expect(await revertOf("settleSplit", [jobId, addr(PAYER), 1n])).toBe("AgentNotAssigned");
    expect(await revertOf("settlePartSplit", [jobId, addr(PAYER), 0n, 2n, 1n])).toBe("AgentNotAssigned");
    const before = await balance(addr(PAYER));
    const receipt = await send("refund", [jobId, addr(PAYER)]);
    expect(parseEventLogs({ abi: v2Abi, eventName: "Refunded", logs: receipt.logs })[0].args).toEqual({
      jobId,
      payer: addr(PAYER),
      amount: BUDGET,
    });
    expect((await balance(addr(PAYER))) - before).toBe(BUDGET);
    expect((await readSlot(jobId)).state).toBe(State.Refunded);
  });

  it("the payer assigns the agent once by its own call (empty signature); release then pays that agent, less the fee", async () => {
    const jobId = newEscrowJobId();
    await deposit(PAYER, jobId);
    // Not the operator, not a stranger, not the agent: without the payer's signature they are refused.
    for (const who of [OPERATOR, STRANGER, AGENT]) {
      expect(await revertOf("assign", [jobId, addr(PAYER), addr(who), FAR_DEADLINE, "0x"], who)).toBe(
        "InvalidSignature",
      );
    }
    // The deadline bounds the payer's own call too.
    expect(await revertOf("assign", [jobId, addr(PAYER), addr(AGENT), (await now()) - 1n, "0x"], PAYER)).toBe(
      "SignatureExpired",
    );
    expect(await revertOf("assign", [jobId, addr(PAYER), ZERO, FAR_DEADLINE, "0x"], PAYER)).toBe("InvalidAgent");
    expect(await revertOf("assign", [jobId, addr(PAYER), escrow, FAR_DEADLINE, "0x"], PAYER)).toBe("InvalidAgent");

    const assigned = await send("assign", [jobId, addr(PAYER), addr(AGENT), FAR_DEADLINE, "0x"], PAYER);
    expect(parseEventLogs({ abi: v2Abi, eventName: "AgentAssigned", logs: assigned.logs })[0].args).toEqual({
      jobId,
      payer: addr(PAYER),
      agent: addr(AGENT),
      bySignature: false,
    });
    // Not even the payer changes it afterwards: the agent works knowing where it will be paid.
    expect(await revertOf("assign", [jobId, addr(PAYER), addr(PAYER), FAR_DEADLINE, "0x"], PAYER)).toBe(
      "AgentAlreadyAssigned",
    );
    expect(await readSlot(jobId)).toMatchObject({ agent: addr(AGENT), moveNonce: 0n });

    const [agentBefore, escrowBefore] = await balances([addr(AGENT), escrow]);
    const accrued = await read<bigint>("feesAccrued");
    const released = await send("release", [jobId, addr(PAYER)]);
    expect((await balance(addr(AGENT))) - agentBefore).toBe(190_000n);
    expect(escrowBefore - (await balance(escrow))).toBe(190_000n);
    expect((await read<bigint>("feesAccrued")) - accrued).toBe(10_000n);
    expect(parseEventLogs({ abi: v2Abi, eventName: "Released", logs: released.logs })[0].args).toEqual({
      jobId,
      payer: addr(PAYER),
      agent: addr(AGENT),
      amount: 190_000n,
      fee: 10_000n,
    });
    expect(await readSlot(jobId)).toMatchObject({ state: State.Released, settledBlock: released.blockNumber });
    expect(await revertOf("release", [jobId, addr(PAYER)])).toBe("NotFunded");
    expect(await revertOf("refund", [jobId, addr(PAYER)])).toBe("NotFunded");
  });

  it("a split divides only between the assigned agent and the payer, the fee on the agent's share", async () => {
    const jobId = await fundedWithAgent();
    const share = (BUDGET * 70n) / 100n;
    const before = await balances([addr(AGENT), addr(PAYER)]);
    const receipt = await send("settleSplit", [jobId, addr(PAYER), share]);
    const after = await balances([addr(AGENT), addr(PAYER)]);
    expect(after[0] - before[0]).toBe(133_000n);
    expect(after[1] - before[1]).toBe(60_000n);
    expect(parseEventLogs({ abi: v2Abi, eventName: "Split", logs: receipt.logs })[0].args).toEqual({
      jobId,
      payer: addr(PAYER),
      agent: addr(AGENT),
      agentAmount: 133_000n,
      fee: 7_000n,
      payerAmount: 60_000n,
    });
    expect((await readSlot(jobId)).state).toBe(State.Split);
    const other = await fundedWithAgent();
    expect(await revertOf("settleSplit", [other, addr(PAYER), BUDGET + 1n])).toBe("ShareTooLarge");
  });

  it("besides the operator only the payer releases and only the agent refunds: never to itself, and nobody else settles", async () => {
    const jobId = await fundedWithAgent();
    // The payer cannot take its money back before the expiry, nor the agent pay itself.
    expect(await revertOf("refund", [jobId, addr(PAYER)], PAYER)).toBe("NotOperatorOrAgent");
    expect(await revertOf("release", [jobId, addr(PAYER)], AGENT)).toBe("NotOperatorOrPayer");
    for (const who of [STRANGER, OWNER]) {
      expect(await revertOf("release", [jobId, addr(PAYER)], who)).toBe("NotOperatorOrPayer");
      expect(await revertOf("refund", [jobId, addr(PAYER)], who)).toBe("NotOperatorOrAgent");
    }
    for (const who of [PAYER, AGENT, STRANGER, OWNER]) {
      expect(await revertOf("settleSplit", [jobId, addr(PAYER), 1n], who)).toBe("NotOperator");
      expect(await revertOf("releasePart", [jobId, addr(PAYER), 0n, 1n], who)).toBe("NotOperator");
      expect(await revertOf("refundPart", [jobId, addr(PAYER), 0n, 1n], who)).toBe("NotOperator");
      expect(await revertOf("withdrawFees", [], who)).toBe("NotOperator");
    }
  });
});

describe("the payer's consent by EIP-712 signature, relayed by anyone", () => {
  async function fresh() {
    const jobId = newEscrowJobId();
    await deposit(PAYER, jobId);
    return { jobId, deadline: (await now()) + 3600n };
  }

  it("the domain and struct are the documented ones", async () => {
    const [, name, version, chainId, verifyingContract] =
      await read<readonly [Hex, string, string, bigint, Address, Hex, readonly bigint[]]>("eip712Domain");
    expect({ name, version, chainId, verifyingContract }).toEqual({
      name: "AgentWorkEscrow",
      version: "2",
      chainId: BigInt(chain.config.chainId),
      verifyingContract: escrow,
    });
    expect(await read("ASSIGN_TYPEHASH")).toBe(
      keccak256(toBytes("Assign(bytes32 jobId,address payer,address agent,uint256 deadline)")),
    );
    expect(await read("APPROVE_TYPEHASH")).toBe(
      keccak256(toBytes("Approve(bytes32 jobId,address payer,address agent,uint256 deadline)")),
    );
    expect(await read("MOVE_AGENT_TYPEHASH")).toBe(
      keccak256(
        toBytes("MoveAgent(bytes32 jobId,address payer,address agent,address newAgent,uint256 nonce,uint256 deadline)"),
      ),
    );
  });

  it("a stranger relays the payer's signature and the agent is assigned; the release pays that agent", async () => {
    const { jobId, deadline } = await fresh();
    const signature = await signAssign(PAYER, { jobId, payer: addr(PAYER), agent: addr(AGENT), deadline });
    const receipt = await send("assign", [jobId, addr(PAYER), addr(AGENT), deadline, signature], STRANGER);
    expect(parseEventLogs({ abi: v2Abi, eventName: "AgentAssigned", logs: receipt.logs })[0].args).toEqual({
      jobId,
      payer: addr(PAYER),
      agent: addr(AGENT),
      bySignature: true,
    });
    expect(await readSlot(jobId)).toMatchObject({ agent: addr(AGENT), moveNonce: 0n });
    const before = await balance(addr(AGENT));
    await send("release", [jobId, addr(PAYER)]);
    expect((await balance(addr(AGENT))) - before).toBe(190_000n);
  });

  it("refuses a signature by anyone but the payer (the operator's, the agent's own) and an agent changed by the relayer", async () => {
    const { jobId, deadline } = await fresh();
    const message = { jobId, payer: addr(PAYER), agent: addr(AGENT), deadline };
    for (const signer of [OPERATOR, AGENT, STRANGER]) {
      const signature = await signAssign(signer, message);
      expect(await revertOf("assign", [jobId, addr(PAYER), addr(AGENT), deadline, signature], STRANGER)).toBe(
        "InvalidSignature",
      );
    }
    const payers = await signAssign(PAYER, message);
    expect(await revertOf("assign", [jobId, addr(PAYER), addr(STRANGER), deadline, payers], STRANGER)).toBe(
      "InvalidSignature",
    );
    // Nor for another payer's slot of the same job, nor with a deadline the payer did not sign.
    await deposit(PAYER2, jobId);
    expect(await revertOf("assign", [jobId, addr(PAYER2), addr(AGENT), deadline, payers], STRANGER)).toBe(
      "InvalidSignature",
    );
    expect(await revertOf("assign", [jobId, addr(PAYER), addr(AGENT), deadline + 1n, payers], STRANGER)).toBe(
      "InvalidSignature",
    );
    expect((await readSlot(jobId)).agent).toBe(ZERO);
  });

  it("refuses an expired signature", async () => {
    const { jobId } = await fresh();
    const deadline = (await now()) - 1n;
    const signature = await signAssign(PAYER, { jobId, payer: addr(PAYER), agent: addr(AGENT), deadline });
    expect(await revertOf("assign", [jobId, addr(PAYER), addr(AGENT), deadline, signature], STRANGER)).toBe(
      "SignatureExpired",
    );
  });

  it("refuses a signature for another chain, another contract, or another version or name of the domain", async () => {
    const { jobId, deadline } = await fresh();
    const message = { jobId, payer: addr(PAYER), agent: addr(AGENT), deadline };
    const other = await deployV2();
    const foreign = [
      await signAssign(PAYER, message, { chainId: chain.config.chainId + 1 }),
      await signAssign(PAYER, message, { verifyingContract: other }),
      await signAssign(PAYER, message, { verifyingContract: chain.config.escrowAddress }),
      await signAssign(PAYER, message, { version: "1" }),
      await signAssign(PAYER, message, { name: "AgentWork Escrow" }),
    ];
    for (const signature of foreign) {
      expect(await revertOf("assign", [jobId, addr(PAYER), addr(AGENT), deadline, signature], STRANGER)).toBe(
        "InvalidSignature",
      );
    }
  });

  it("an Assign works once: replayed, even after the agent moved its address, it is refused; a payer's own call voids one not yet relayed", async () => {
    const { jobId, deadline } = await fresh();
    const signature = await signAssign(PAYER, { jobId, payer: addr(PAYER), agent: addr(AGENT), deadline });
    const args = [jobId, addr(PAYER), addr(AGENT), deadline, signature] as const;
    await send("assign", args, STRANGER);
    expect(await revertOf("assign", args, STRANGER)).toBe("AgentAlreadyAssigned");
    // The agent moves its payout away: the Assign (no nonce) still cannot put AGENT back.
    await send("moveAgent", [jobId, addr(PAYER), addr(AGENT_NEW)], AGENT);
    expect(await revertOf("assign", args, STRANGER)).toBe("AgentAlreadyAssigned");
    expect(await revertOf("assign", args, PAYER)).toBe("AgentAlreadyAssigned");
    expect((await readSlot(jobId)).agent).toBe(addr(AGENT_NEW));

    // The payer signed for AGENT, then changed its mind and assigned AGENT_NEW itself: the old
    // signature is void (the agent is assigned), whoever holds it.
    const second = await fresh();
    const stale = await signAssign(PAYER, {
      jobId: second.jobId,
      payer: addr(PAYER),
      agent: addr(AGENT),
      deadline: second.deadline,
    });
    await send("assign", [second.jobId, addr(PAYER), addr(AGENT_NEW), FAR_DEADLINE, "0x"], PAYER);
    expect(await revertOf("assign", [second.jobId, addr(PAYER), addr(AGENT), second.deadline, stale], STRANGER)).toBe(
      "AgentAlreadyAssigned",
    );
    expect((await readSlot(second.jobId)).agent).toBe(addr(AGENT_NEW));
  });

  it("a contract wallet (ERC-1271) is a payer: it deposits, its owner's signature assigns the agent, a stranger's does not", async () => {
    const WALLET_OWNER = 4;
    const wallet = (
      await mined(
        await chain
          .wallet(WALLET_OWNER)
          .deployContract({ abi: walletAbi, bytecode: walletBytecode, args: [addr(WALLET_OWNER)] }),
      )
    ).contractAddress as Address;
    await mined(
      await chain
        .wallet(WALLET_OWNER)
        .writeContract({ address: usdc, abi: usdcAbi, functionName: "transfer", args: [wallet, BUDGET] }),
    );
    const execute = async (target: Address, data: Hex) =>
      mined(
        await chain
          .wallet(WALLET_OWNER)
          .writeContract({ address: wallet, abi: walletAbi, functionName: "execute", args: [target, data] }),
      );
    const jobId = newEscrowJobId();
    const expiresAt = (await now()) + 7n * DAY;
    await execute(usdc, encodeFunctionData({ abi: usdcAbi, functionName: "approve", args: [escrow, BUDGET] }));
    await execute(
      escrow,
      encodeFunctionData({ abi: v2Abi, functionName: "deposit", args: [jobId, BUDGET, expiresAt] }),
    );
    expect(await readSlot(jobId, wallet)).toMatchObject({ amount: BUDGET, state: State.Funded });

    const deadline = (await now()) + 3600n;
    const message = { jobId, payer: wallet, agent: addr(AGENT), deadline };
    const bystander = await signAssign(STRANGER, message);
    expect(await revertOf("assign", [jobId, wallet, addr(AGENT), deadline, bystander], STRANGER)).toBe(
      "InvalidSignature",
    );
    const owners = await signAssign(WALLET_OWNER, message);
    await send("assign", [jobId, wallet, addr(AGENT), deadline, owners], STRANGER);
    expect((await readSlot(jobId, wallet)).agent).toBe(addr(AGENT));

    // Its Approve goes through ERC-1271 as well: the agent relays the owner's, not a stranger's.
    const approval = { jobId, payer: wallet, agent: addr(AGENT), deadline };
    const strangers = await signApprove(STRANGER, approval);
    expect(await revertOf("releaseWithApproval", [jobId, wallet, deadline, strangers], AGENT)).toBe("InvalidSignature");
    const before = await balance(addr(AGENT));
    await send("releaseWithApproval", [jobId, wallet, deadline, await signApprove(WALLET_OWNER, approval)], AGENT);
    expect((await balance(addr(AGENT))) - before).toBe(190_000n);
  });
});

describe("without the service: the payer releases, the agent gives up", () => {
  it("the payer releases to the assigned agent itself, even paused and with the operator revoked", async () => {
    const unassigned = newEscrowJobId();
    await deposit(PAYER, unassigned);
    expect(await revertOf("release", [unassigned, addr(PAYER)], PAYER)).toBe("AgentNotAssigned");
    const jobId = await fundedWithAgent();
    await send("pause", [], OWNER);
    await send("setOperator", [ZERO], OWNER);
    try {
      const before = await balance(addr(AGENT));
      const receipt = await send("release", [jobId, addr(PAYER)], PAYER);
      expect((await balance(addr(AGENT))) - before).toBe(190_000n);
      expect(parseEventLogs({ abi: v2Abi, eventName: "Released", logs: receipt.logs })[0].args).toMatchObject({
        agent: addr(AGENT),
        amount: 190_000n,
        fee: 10_000n,
      });
    } finally {
      await send("setOperator", [addr(OPERATOR)], OWNER);
      await send("unpause", [], OWNER);
    }
  });

  it("the agent relays the payer's Approve and is paid without the operator; other signers, another agent or a late one are refused", async () => {
    const jobId = await fundedWithAgent();
    const deadline = (await now()) + 7n * DAY;
    const message = { jobId, payer: addr(PAYER), agent: addr(AGENT), deadline };
    for (const signer of [OPERATOR, AGENT]) {
      const signature = await signApprove(signer, message);
      expect(await revertOf("releaseWithApproval", [jobId, addr(PAYER), deadline, signature], AGENT)).toBe(
        "InvalidSignature",
      );
    }
    // Signed for another agent than the slot's: refused (the struct names the assigned agent).
    const forStranger = await signApprove(PAYER, { ...message, agent: addr(STRANGER) });
    expect(await revertOf("releaseWithApproval", [jobId, addr(PAYER), deadline, forStranger], STRANGER)).toBe(
      "InvalidSignature",
    );
    const late = (await now()) - 1n;
    const expired = await signApprove(PAYER, { ...message, deadline: late });
    expect(await revertOf("releaseWithApproval", [jobId, addr(PAYER), late, expired], AGENT)).toBe("SignatureExpired");

    const approval = await signApprove(PAYER, message);
    await send("setOperator", [ZERO], OWNER);
    try {
      const before = await balance(addr(AGENT));
      await send("releaseWithApproval", [jobId, addr(PAYER), deadline, approval], AGENT);
      expect((await balance(addr(AGENT))) - before).toBe(190_000n);
    } finally {
      await send("setOperator", [addr(OPERATOR)], OWNER);
    }
    // Once: the slot is closed.
    expect(await revertOf("releaseWithApproval", [jobId, addr(PAYER), deadline, approval], AGENT)).toBe("NotFunded");
  });

  it("an Approve names the agent it pays: after the agent moved its address, the old one is refused and one naming the new address pays there", async () => {
    const jobId = await fundedWithAgent();
    const deadline = (await now()) + DAY;
    const old = await signApprove(PAYER, { jobId, payer: addr(PAYER), agent: addr(AGENT), deadline });
    await send("moveAgent", [jobId, addr(PAYER), addr(AGENT_NEW)], AGENT);
    expect(await revertOf("releaseWithApproval", [jobId, addr(PAYER), deadline, old], STRANGER)).toBe(
      "InvalidSignature",
    );
    const current = await signApprove(PAYER, { jobId, payer: addr(PAYER), agent: addr(AGENT_NEW), deadline });
    const before = await balances([addr(AGENT), addr(AGENT_NEW)]);
    await send("releaseWithApproval", [jobId, addr(PAYER), deadline, current], STRANGER);
    const after = await balances([addr(AGENT), addr(AGENT_NEW)]);
    expect(after[0] - before[0]).toBe(0n);
    expect(after[1] - before[1]).toBe(190_000n);
  });

  it("the agent gives the money back to the payer; the payer cannot refund itself before the expiry", async () => {
    const jobId = await fundedWithAgent();
    expect(await revertOf("refund", [jobId, addr(PAYER)], PAYER)).toBe("NotOperatorOrAgent");
    const before = await balance(addr(PAYER));
    const receipt = await send("refund", [jobId, addr(PAYER)], AGENT);
    expect((await balance(addr(PAYER))) - before).toBe(BUDGET);
    expect(parseEventLogs({ abi: v2Abi, eventName: "Refunded", logs: receipt.logs })[0].args).toEqual({
      jobId,
      payer: addr(PAYER),
      amount: BUDGET,
    });
    expect((await readSlot(jobId)).state).toBe(State.Refunded);
  });
});

describe("moving the agent: the agent's consent only", () => {
  it("the agent moves its payout by its own call; the next release pays the new address", async () => {
    const jobId = await fundedWithAgent();
    const receipt = await send("moveAgent", [jobId, addr(PAYER), addr(AGENT_NEW)], AGENT);
    expect(parseEventLogs({ abi: v2Abi, eventName: "AgentMoved", logs: receipt.logs })[0].args).toEqual({
      jobId,
      payer: addr(PAYER),
      from: addr(AGENT),
      to: addr(AGENT_NEW),
      bySignature: false,
    });
    const before = await balances([addr(AGENT), addr(AGENT_NEW)]);
    await send("release", [jobId, addr(PAYER)]);
    const after = await balances([addr(AGENT), addr(AGENT_NEW)]);
    expect(after[0] - before[0]).toBe(0n);
    expect(after[1] - before[1]).toBe(190_000n);
  });

  it("the payer, the operator or a stranger cannot move it, by call or by their signature", async () => {
    const jobId = await fundedWithAgent();
    for (const who of [PAYER, OPERATOR, STRANGER]) {
      expect(await revertOf("moveAgent", [jobId, addr(PAYER), addr(who)], who)).toBe("NotAgent");
    }
    const { moveNonce: nonce } = await readSlot(jobId);
    const deadline = (await now()) + 3600n;
    for (const signer of [PAYER, OPERATOR]) {
      const signature = await signMoveAgent(signer, {
        jobId,
        payer: addr(PAYER),
        agent: addr(AGENT),
        newAgent: addr(signer),
        nonce,
        deadline,
      });
      expect(
        await revertOf("moveAgentWithSig", [jobId, addr(PAYER), addr(signer), nonce, deadline, signature], STRANGER),
      ).toBe("InvalidSignature");
    }
    // Nor can the payer assign a new one over it.
    expect(await revertOf("assign", [jobId, addr(PAYER), addr(PAYER), FAR_DEADLINE, "0x"], PAYER)).toBe(
      "AgentAlreadyAssigned",
    );
    expect((await readSlot(jobId)).agent).toBe(addr(AGENT));
    // Before an agent is assigned there is nothing to move.
    const unassigned = newEscrowJobId();
    await deposit(PAYER, unassigned);
    expect(await revertOf("moveAgent", [unassigned, addr(PAYER), addr(AGENT)], AGENT)).toBe("AgentNotAssigned");
  });

  it("the agent's signature, relayed by anyone, moves it once; replayed after a move back it is refused", async () => {
    const jobId = await fundedWithAgent();
    const deadline = (await now()) + 3600n;
    const nonce = (await readSlot(jobId)).moveNonce;
    const signature = await signMoveAgent(AGENT, {
      jobId,
      payer: addr(PAYER),
      agent: addr(AGENT),
      newAgent: addr(AGENT_NEW),
      nonce,
      deadline,
    });
    const args = [jobId, addr(PAYER), addr(AGENT_NEW), nonce, deadline, signature] as const;
    const receipt = await send("moveAgentWithSig", args, STRANGER);
    expect(parseEventLogs({ abi: v2Abi, eventName: "AgentMoved", logs: receipt.logs })[0].args).toMatchObject({
      from: addr(AGENT),
      to: addr(AGENT_NEW),
      bySignature: true,
    });
    // The new agent hands it back; AGENT is the agent again, yet its old signature stays spent.
    await send("moveAgent", [jobId, addr(PAYER), addr(AGENT)], AGENT_NEW);
    expect((await readSlot(jobId)).agent).toBe(addr(AGENT));
    expect(await revertOf("moveAgentWithSig", args, STRANGER)).toBe("WrongNonce");
    const expired = (await now()) - 1n;
    const late = await signMoveAgent(AGENT, {
      jobId,
      payer: addr(PAYER),
      agent: addr(AGENT),
      newAgent: addr(AGENT_NEW),
      nonce: nonce + 2n,
      deadline: expired,
    });
    expect(
      await revertOf("moveAgentWithSig", [jobId, addr(PAYER), addr(AGENT_NEW), nonce + 2n, expired, late], STRANGER),
    ).toBe("SignatureExpired");
  });
});

describe("money comes back without the service", () => {
  it("claimRefund before the expiry reverts, for the payer and anyone else", async () => {
    const jobId = await fundedWithAgent();
    for (const who of [PAYER, STRANGER, OPERATOR]) {
      expect(await revertOf("claimRefund", [jobId, addr(PAYER)], who)).toBe("NotExpiredYet");
    }
  });

  it("after the expiry, with the contract paused and the operator revoked, a stranger returns the slot to the payer; then nothing moves it", async () => {
    const jobId = newEscrowJobId();
    const expiresAt = (await now()) + DAY + 60n;
    await deposit(PAYER, jobId, BUDGET, expiresAt);
    await send("assign", [jobId, addr(PAYER), addr(AGENT), FAR_DEADLINE, "0x"], PAYER);
    // Pausing and the operator are the owner's alone.
    expect(await revertOf("pause", [], OPERATOR)).toBe("OwnableUnauthorizedAccount");
    expect(await revertOf("setOperator", [ZERO], OPERATOR)).toBe("OwnableUnauthorizedAccount");
    await send("pause", [], OWNER);
    const revoked = await send("setOperator", [ZERO], OWNER);
    expect(parseEventLogs({ abi: v2Abi, eventName: "OperatorChanged", logs: revoked.logs })[0].args).toEqual({
      previousOperator: addr(OPERATOR),
      newOperator: ZERO,
    });
    try {
      expect(await revertOf("release", [jobId, addr(PAYER)])).toBe("NotOperatorOrPayer");
      expect(await revertOf("claimRefund", [jobId, addr(PAYER)], STRANGER)).toBe("NotExpiredYet");
      await warp(DAY + 120n);
      expect(await read<boolean>("paused")).toBe(true);

      const before = await balances([addr(PAYER), addr(AGENT), escrow]);
      const receipt = await send("claimRefund", [jobId, addr(PAYER)], STRANGER);
      const after = await balances([addr(PAYER), addr(AGENT), escrow]);
      expect(after[0] - before[0]).toBe(BUDGET);
      expect(after[1]).toBe(before[1]);
      expect(before[2] - after[2]).toBe(BUDGET);
      expect(parseEventLogs({ abi: v2Abi, eventName: "RefundClaimed", logs: receipt.logs })[0].args).toEqual({
        jobId,
        payer: addr(PAYER),
        caller: addr(STRANGER),
        amount: BUDGET,
      });
      expect(await readSlot(jobId)).toMatchObject({ state: State.RefundClaimed, settledBlock: receipt.blockNumber });
    } finally {
      await send("setOperator", [addr(OPERATOR)], OWNER);
      await send("unpause", [], OWNER);
    }
    // Settled for good: no second claim, no settlement by the operator, the payer or the agent,
    // no relayed approval, no agent change, no extension.
    expect(await revertOf("claimRefund", [jobId, addr(PAYER)], PAYER)).toBe("NotFunded");
    expect(await revertOf("release", [jobId, addr(PAYER)])).toBe("NotFunded");
    expect(await revertOf("refund", [jobId, addr(PAYER)])).toBe("NotFunded");
    expect(await revertOf("release", [jobId, addr(PAYER)], PAYER)).toBe("NotFunded");
    expect(await revertOf("refund", [jobId, addr(PAYER)], AGENT)).toBe("NotFunded");
    const deadline = (await now()) + 3600n;
    const approval = await signApprove(PAYER, { jobId, payer: addr(PAYER), agent: addr(AGENT), deadline });
    expect(await revertOf("releaseWithApproval", [jobId, addr(PAYER), deadline, approval], AGENT)).toBe("NotFunded");
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 0n, 1n])).toBe("NotFunded");
    expect(await revertOf("moveAgent", [jobId, addr(PAYER), addr(AGENT_NEW)], AGENT)).toBe("NotFunded");
    expect(await revertOf("assign", [jobId, addr(PAYER), addr(AGENT_NEW), FAR_DEADLINE, "0x"], PAYER)).toBe(
      "NotFunded",
    );
    expect(await revertOf("extendExpiry", [jobId, (await now()) + 10n * DAY], PAYER)).toBe("NotFunded");
  });

  it("the owner replaces the operator: the new key settles, the old one no longer does", async () => {
    const NEW_OPERATOR = 5;
    const jobId = await fundedWithAgent();
    await send("setOperator", [addr(NEW_OPERATOR)], OWNER);
    try {
      expect(await read<Address>("operator")).toBe(addr(NEW_OPERATOR));
      expect(await revertOf("refund", [jobId, addr(PAYER)], OPERATOR)).toBe("NotOperatorOrAgent");
      expect(await revertOf("releasePart", [jobId, addr(PAYER), 0n, 1n], OPERATOR)).toBe("NotOperator");
      const before = await balance(addr(AGENT));
      await send("release", [jobId, addr(PAYER)], NEW_OPERATOR);
      expect((await balance(addr(AGENT))) - before).toBe(190_000n);
    } finally {
      await send("setOperator", [addr(OPERATOR)], OWNER);
    }
  });

  it("the operator cannot settle from the expiry on; only claimRefund can", async () => {
    const jobId = newEscrowJobId();
    await deposit(PAYER, jobId, BUDGET, (await now()) + DAY + 60n);
    await send("assign", [jobId, addr(PAYER), addr(AGENT), FAR_DEADLINE, "0x"], PAYER);
    await warp(DAY + 120n);
    expect(await revertOf("release", [jobId, addr(PAYER)])).toBe("SlotExpired");
    expect(await revertOf("refund", [jobId, addr(PAYER)])).toBe("SlotExpired");
    expect(await revertOf("settleSplit", [jobId, addr(PAYER), 1n])).toBe("SlotExpired");
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 0n, 1n])).toBe("SlotExpired");
    await send("claimRefund", [jobId, addr(PAYER)], PAYER);
  });

  it("a pause stops deposits and the operator's settlements before the expiry, never the payer's and agent's own calls", async () => {
    const jobId = await fundedWithAgent();
    await send("pause", [], OWNER);
    try {
      expect(await revertOf("release", [jobId, addr(PAYER)])).toBe("EnforcedPause");
      expect(await revertOf("refund", [jobId, addr(PAYER)])).toBe("EnforcedPause");
      expect(await revertOf("deposit", [newEscrowJobId(), BUDGET, (await now()) + 2n * DAY], PAYER)).toBe(
        "EnforcedPause",
      );
      await send("extendExpiry", [jobId, (await now()) + 60n * DAY], PAYER);
      await send("moveAgent", [jobId, addr(PAYER), addr(AGENT_NEW)], AGENT);
    } finally {
      await send("unpause", [], OWNER);
    }
    expect(await readSlot(jobId)).toMatchObject({ state: State.Funded, agent: addr(AGENT_NEW) });
  });

  it("an extension moves claimRefund later", async () => {
    const jobId = newEscrowJobId();
    const expiresAt = (await now()) + DAY + 60n;
    await deposit(PAYER, jobId, BUDGET, expiresAt);
    await send("extendExpiry", [jobId, expiresAt + 10n * DAY], PAYER);
    await warp(DAY + 120n);
    expect(await revertOf("claimRefund", [jobId, addr(PAYER)], STRANGER)).toBe("NotExpiredYet");
    // And the operator may still settle until the new expiry.
    await send("refund", [jobId, addr(PAYER)]);
  });
});

describe("parts (milestones)", () => {
  const USDC = 1_000_000n;

  it("parts paid to the agent, then the rest returned by claimRefund after the expiry: every unit accounted for", async () => {
    const jobId = newEscrowJobId();
    const DEPOSIT = 30n * USDC;
    await deposit(PAYER, jobId, DEPOSIT, (await now()) + DAY + 60n);
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 0n, 7n * USDC])).toBe("AgentNotAssigned");
    await send("assign", [jobId, addr(PAYER), addr(AGENT), FAR_DEADLINE, "0x"], PAYER);
    const [payer0, agent0, escrow0] = await balances([addr(PAYER), addr(AGENT), escrow]);
    const fees0 = await read<bigint>("feesAccrued");

    const r0 = await send("releasePart", [jobId, addr(PAYER), 0n, 7n * USDC]);
    expect(parseEventLogs({ abi: v2Abi, eventName: "PartReleased", logs: r0.logs })[0].args).toEqual({
      jobId,
      payer: addr(PAYER),
      part: 0n,
      agent: addr(AGENT),
      amount: 7n * USDC - fee(7n * USDC),
      fee: fee(7n * USDC),
    });
    const share = 4n * USDC;
    const r1 = await send("settlePartSplit", [jobId, addr(PAYER), 1n, 10n * USDC, share]);
    expect(parseEventLogs({ abi: v2Abi, eventName: "PartSplit", logs: r1.logs })[0].args).toMatchObject({
      part: 1n,
      agent: addr(AGENT),
      agentAmount: share - fee(share),
      fee: fee(share),
      payerAmount: 6n * USDC,
    });
    const r2 = await send("refundPart", [jobId, addr(PAYER), 2n, 3n * USDC]);
    expect(parseEventLogs({ abi: v2Abi, eventName: "PartRefunded", logs: r2.logs })[0].args).toEqual({
      jobId,
      payer: addr(PAYER),
      part: 2n,
      amount: 3n * USDC,
    });
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 0n, USDC])).toBe("PartAlreadySettled");
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 3n, 10n * USDC + 1n])).toBe("PartTooLarge");
    expect(await read("getPart", [jobId, addr(PAYER), 0n])).toEqual([r0.blockNumber, 10n * USDC]);

    await warp(DAY + 120n);
    const claimed = await send("claimRefund", [jobId, addr(PAYER)], STRANGER);
    expect(parseEventLogs({ abi: v2Abi, eventName: "RefundClaimed", logs: claimed.logs })[0].args.amount).toBe(
      10n * USDC,
    );
    const [payer1, agent1, escrow1] = await balances([addr(PAYER), addr(AGENT), escrow]);
    const fees = (await read<bigint>("feesAccrued")) - fees0;
    expect(fees).toBe(fee(7n * USDC) + fee(share));
    expect(agent1 - agent0).toBe(7n * USDC + share - fees);
    expect(payer1 - payer0).toBe(6n * USDC + 3n * USDC + 10n * USDC);
    expect(agent1 - agent0 + (payer1 - payer0) + fees).toBe(DEPOSIT);
    expect(escrow0 - escrow1).toBe(DEPOSIT - fees);
  });

  it("parts paid, then the operator refunds the rest before the expiry", async () => {
    const jobId = await fundedWithAgent(30n * USDC);
    await send("releasePart", [jobId, addr(PAYER), 0n, 10n * USDC]);
    const before = await balance(addr(PAYER));
    const receipt = await send("refund", [jobId, addr(PAYER)]);
    expect(parseEventLogs({ abi: v2Abi, eventName: "Refunded", logs: receipt.logs })[0].args.amount).toBe(20n * USDC);
    expect((await balance(addr(PAYER))) - before).toBe(20n * USDC);
    expect(await readSlot(jobId)).toMatchObject({ state: State.Refunded, partsSettled: 10n * USDC });
  });

  it("parts that take the whole deposit close the slot; claimRefund then has nothing to return", async () => {
    const jobId = newEscrowJobId();
    await deposit(PAYER, jobId, 20n * USDC, (await now()) + DAY + 60n);
    await send("assign", [jobId, addr(PAYER), addr(AGENT), FAR_DEADLINE, "0x"], PAYER);
    await send("releasePart", [jobId, addr(PAYER), 0n, 10n * USDC]);
    await send("releasePart", [jobId, addr(PAYER), 1n, 10n * USDC]);
    expect((await readSlot(jobId)).state).toBe(State.PartsSettled);
    await warp(DAY + 120n);
    expect(await revertOf("claimRefund", [jobId, addr(PAYER)], STRANGER)).toBe("NotFunded");
  });
});

describe("a recipient the token refuses (USDC blacklist)", () => {
  const claimable = (who: Address) => read<bigint>("claimable", [who]);

  it("a blacklisted agent is credited at release and claims to another address, once", async () => {
    const BLACKLISTED = 5;
    const jobId = await fundedWithAgent(BUDGET, addr(BLACKLISTED));
    await blacklist(addr(BLACKLISTED), true);
    try {
      const before = await balance(addr(BLACKLISTED));
      const receipt = await send("release", [jobId, addr(PAYER)]);
      expect((await readSlot(jobId)).state).toBe(State.Released);
      expect(await balance(addr(BLACKLISTED))).toBe(before);
      expect(parseEventLogs({ abi: v2Abi, eventName: "Credited", logs: receipt.logs }).map((e) => e.args)).toEqual([
        { jobId, account: addr(BLACKLISTED), amount: 190_000n },
      ]);
      expect(await claimable(addr(BLACKLISTED))).toBe(190_000n);

      const [destBefore] = await balances([addr(AGENT_NEW)]);
      const claimed = await send("claim", [addr(AGENT_NEW)], BLACKLISTED);
      expect(parseEventLogs({ abi: v2Abi, eventName: "Claimed", logs: claimed.logs })[0].args).toEqual({
        account: addr(BLACKLISTED),
        to: addr(AGENT_NEW),
        amount: 190_000n,
      });
      expect((await balance(addr(AGENT_NEW))) - destBefore).toBe(190_000n);
      expect(await claimable(addr(BLACKLISTED))).toBe(0n);
      expect(await revertOf("claim", [addr(AGENT_NEW)], BLACKLISTED)).toBe("NothingToClaim");
      expect(await revertOf("claim", [ZERO], BLACKLISTED)).toBe("InvalidRecipient");
    } finally {
      await blacklist(addr(BLACKLISTED), false);
    }
  });

  it("a blacklisted payer's claimRefund settles the slot and credits the payer, who claims later", async () => {
    const jobId = newEscrowJobId();
    await deposit(PAYER2, jobId, BUDGET, (await now()) + DAY + 60n);
    await warp(DAY + 120n);
    await blacklist(addr(PAYER2), true);
    try {
      await send("claimRefund", [jobId, addr(PAYER2)], STRANGER);
      expect((await readSlot(jobId, addr(PAYER2))).state).toBe(State.RefundClaimed);
      expect(await claimable(addr(PAYER2))).toBe(BUDGET);
    } finally {
      await blacklist(addr(PAYER2), false);
    }
    const before = await balance(addr(PAYER2));
    await send("claim", [addr(PAYER2)], PAYER2);
    expect((await balance(addr(PAYER2))) - before).toBe(BUDGET);
  });
});

describe("fees", () => {
  it("a slot's fee is the one in force at its deposit, and no function can raise it", async () => {
    const jobId = await fundedWithAgent();
    expect((await readSlot(jobId)).slotFeeBps).toBe(Number(feeBps));
    expect(await read<number>("feeBps")).toBe(Number(feeBps));
    // The only state-changing function about fees sweeps them; none sets a rate.
    const writers = v2Abi
      .filter((item) => item.type === "function" && item.stateMutability !== "view" && item.stateMutability !== "pure")
      .map((item) => (item as { name: string }).name);
    expect(writers.filter((name) => /fee/i.test(name))).toEqual(["withdrawFees"]);
  });

  it("match version 1's arithmetic for releases, splits and parts, amount by amount", async () => {
    const v1 = chain.config.escrowAddress;
    const v1Send = async (functionName: string, args: readonly unknown[], from = OPERATOR) =>
      mined((await chain.wallet(from).writeContract({ address: v1, abi: v1Abi, functionName, args } as never)) as Hex);
    const cases: { amount: bigint; share: bigint }[] = [
      { amount: BUDGET, share: 140_000n },
      { amount: 1n, share: 1n },
      { amount: 19n, share: 7n },
      { amount: 123_457n, share: 99_999n },
      { amount: 10_000_001n, share: 3_333_333n },
    ];
    for (const { amount, share } of cases) {
      // Version 1: release, split, and a part, each on a slot of its own.
      const [a1, b1, c1] = [newEscrowJobId(), newEscrowJobId(), newEscrowJobId()];
      await mined(
        await chain
          .wallet(PAYER)
          .writeContract({ address: usdc, abi: usdcAbi, functionName: "approve", args: [v1, amount * 3n] }),
      );
      for (const id of [a1, b1, c1]) await v1Send("deposit", [id, amount], PAYER);
      const v1Release = parseEventLogs({
        abi: v1Abi,
        eventName: "Released",
        logs: (await v1Send("release", [a1, addr(PAYER), addr(AGENT)])).logs,
      })[0].args;
      const v1Split = parseEventLogs({
        abi: v1Abi,
        eventName: "SplitSettled",
        logs: (await v1Send("settleSplit", [b1, addr(PAYER), addr(AGENT), share])).logs,
      })[0].args;
      const v1Part = parseEventLogs({
        abi: v1Abi,
        eventName: "PartReleased",
        logs: (await v1Send("releasePart", [c1, addr(PAYER), 0n, share, addr(AGENT)])).logs,
      })[0].args;

      const [a2, b2, c2] = [
        await fundedWithAgent(amount),
        await fundedWithAgent(amount),
        await fundedWithAgent(amount),
      ];
      const v2Release = parseEventLogs({
        abi: v2Abi,
        eventName: "Released",
        logs: (await send("release", [a2, addr(PAYER)])).logs,
      })[0].args;
      const v2Split = parseEventLogs({
        abi: v2Abi,
        eventName: "Split",
        logs: (await send("settleSplit", [b2, addr(PAYER), share])).logs,
      })[0].args;
      const v2Part = parseEventLogs({
        abi: v2Abi,
        eventName: "PartReleased",
        logs: (await send("releasePart", [c2, addr(PAYER), 0n, share])).logs,
      })[0].args;

      expect({ amount: v2Release.amount, fee: v2Release.fee }, `release of ${amount}`).toEqual({
        amount: v1Release.amount,
        fee: v1Release.fee,
      });
      expect(
        { agent: v2Split.agentAmount, fee: v2Split.fee, payer: v2Split.payerAmount },
        `split of ${amount}`,
      ).toEqual({ agent: v1Split.agentAmount, fee: v1Split.fee, payer: v1Split.payerAmount });
      expect({ amount: v2Part.amount, fee: v2Part.fee }, `part of ${share}`).toEqual({
        amount: v1Part.amount,
        fee: v1Part.fee,
      });
    }
  });

  it("withdrawFees sends every accrued fee to the immutable fee recipient, once", async () => {
    const jobId = await fundedWithAgent();
    await send("release", [jobId, addr(PAYER)]);
    const accrued = await read<bigint>("feesAccrued");
    const before = await balance(addr(FEE_RECIPIENT));
    const receipt = await send("withdrawFees", []);
    expect((await balance(addr(FEE_RECIPIENT))) - before).toBe(accrued);
    expect(parseEventLogs({ abi: v2Abi, eventName: "FeesWithdrawn", logs: receipt.logs })[0].args).toEqual({
      to: addr(FEE_RECIPIENT),
      amount: accrued,
    });
    expect(await revertOf("withdrawFees", [])).toBe("NoFeesAccrued");
  });
});

describe("reentrancy through a malicious token", () => {
  it("a release re-entered from the token's transfer fails and pays once", async () => {
    const w = chain.wallet(OPERATOR);
    const token = (await mined(await w.deployContract({ abi: reentrantAbi, bytecode: reentrantBytecode, args: [] })))
      .contractAddress as Address;
    // The token is the operator too, so only the reentrancy guard stands in the way.
    const evil = await deployV2(token, token);
    await mined(
      await w.writeContract({ address: token, abi: reentrantAbi, functionName: "mint", args: [addr(PAYER), BUDGET] }),
    );
    await mined(
      await chain
        .wallet(PAYER)
        .writeContract({ address: token, abi: reentrantAbi, functionName: "approve", args: [evil, BUDGET] }),
    );
    const jobId = newEscrowJobId();
    await send("deposit", [jobId, BUDGET, (await now()) + 2n * DAY], PAYER, evil);
    await send("assign", [jobId, addr(PAYER), addr(AGENT), FAR_DEADLINE, "0x"], PAYER, evil);
    const payload = encodeFunctionData({ abi: v2Abi, functionName: "release", args: [jobId, addr(PAYER)] });
    await mined(
      await w.writeContract({ address: token, abi: reentrantAbi, functionName: "arm", args: [evil, payload] }),
    );
    await mined(
      await w.writeContract({ address: token, abi: reentrantAbi, functionName: "forward", args: [evil, payload] }),
    );
    const reentrySucceeded = await chain.publicClient.readContract({
      address: token,
      abi: reentrantAbi,
      functionName: "reentrySucceeded",
    });
    expect(reentrySucceeded).toBe(false);
    expect(
      await chain.publicClient.readContract({
        address: token,
        abi: reentrantAbi,
        functionName: "balanceOf",
        args: [addr(AGENT)],
      }),
    ).toBe(190_000n);
    expect(await read<bigint>("feesAccrued", [], evil)).toBe(10_000n);
  });
});
