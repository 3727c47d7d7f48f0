import { fail } from "../errors";
import { encodeFunctionData, getAddress, isAddressEqual, keccak256, stringToBytes, type Address, type Hex } from "viem";
import type { z } from "zod";
import { abi as reputationAbi } from "@/contracts/artifacts/reputation-registry";
import { getPublicClient } from "@/lib/chain/clients";
import type {
  AgentFeedback,
  FeedbackDocument,
  OnchainFeedback,
  PreparedFeedback,
  RespondRequest,
} from "@/lib/api/schemas/identity";
import type { Actor } from "../auth/actor";
import { actsForAgent } from "../auth/acting-for-agent";
import type { ServiceContext } from "../context";
import { agentRegistryOf, feedbackUriOf, registriesOrThrow } from "./registries";

/** The tag the spec's examples give a 0-100 quality rating. */
const RATING_TAG = "starred";

type Registered = { agentId: bigint; registry: Address; fromBlock: bigint };

/** The agent's identity in the configured Identity Registry, or null. */
async function registeredIdentity(ctx: ServiceContext, agentId: string): Promise<Registered | null> {
  const chain = ctx.config.chain;
  if (!chain?.identityRegistryAddress) return null;
  const row = await ctx.db
    .selectFrom("agent_identities")
    .select(["onchain_agent_id", "register_block"])
    .where("agent_id", "=", agentId)
    .where("chain_id", "=", chain.chainId)
    .where("registry_address", "=", chain.identityRegistryAddress.toLowerCase())
    .where("onchain_agent_id", "is not", null)
    .executeTakeFirst();
  if (!row?.onchain_agent_id) return null;
  return {
    agentId: BigInt(row.onchain_agent_id),
    registry: chain.identityRegistryAddress,
    fromBlock: BigInt(row.register_block ?? "0"),
  };
}

/**
 * Feedback is backed by a payment to the agent: a confirmed release, or a split that gave the agent
 * something. A refund (or a split that gave it nothing) paid the agent nothing, so it backs no
 * feedback; the one home of the rule, for preparing a document and for listing what is backed.
 */
function paidTheAgent(settlement: {
  status: string;
  kind: string;
  tx_hash: string | null;
  amount_units: string | null;
}): boolean {
  if (settlement.status !== "CONFIRMED" || !settlement.tx_hash) return false;
  if (settlement.kind === "RELEASE") return true;
  return settlement.kind === "SPLIT" && settlement.amount_units !== null && BigInt(settlement.amount_units) > 0n;
}

function feedbackCall(chainId: number, registry: Address, agentId: bigint, value: number, uri: string, hash: Hex) {
  return {
    chainId,
    to: registry,
    data: encodeFunctionData({
      abi: reputationAbi,
      functionName: "giveFeedback",
      args: [agentId, BigInt(value), 0, RATING_TAG, "", "", uri, hash],
    }),
  };
}

/**
 * POST /v1/jobs/:id/feedback: the poster, once the job's escrow has paid its agent on chain (a
 * confirmed release, or a ruling's split that gave the agent a share: paidTheAgent), gets a feedback
 * document naming that settlement and the giveFeedback call to send from the wallet they signed in
 * with. A refund backs no feedback.
 */
export async function prepareJobFeedback(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  body: { value: number; comment?: string },
  siteUrl: string,
): Promise<z.input<typeof PreparedFeedback>> {
  const chain = registriesOrThrow(ctx);
  const job = await ctx.db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
  if (!job) throw fail("NOT_FOUND", "job not found");
  if (actor.kind !== "USER" || job.poster_id !== actor.userId) {
    throw fail("FORBIDDEN", "only the human who posted the job writes its feedback");
  }
  const settlement = await ctx.db
    .selectFrom("escrow_settlements")
    .selectAll()
    .where("job_id", "=", job.id)
    .where("status", "=", "CONFIRMED")
    .where("tx_hash", "is not", null)
    .executeTakeFirst();
  if (!settlement || !job.agent_id || job.chain_id !== chain.chainId) {
    throw fail(
      "FEEDBACK_NOT_SETTLED",
      "the job's escrow has not paid its agent on chain yet (a confirmed release, or a ruling's split)",
    );
  }
  if (!paidTheAgent(settlement)) {
    throw fail(
      "FEEDBACK_NOT_SETTLED",
      "the job's escrow went back to its payer and paid the agent nothing: feedback here is backed only by a payment to the agent",
    );
  }
  const identity = await registeredIdentity(ctx, job.agent_id);
  if (!identity) throw fail("AGENT_NOT_REGISTERED", "the assigned agent has no ERC-8004 identity on chain");

  const existing = await ctx.db
    .selectFrom("feedback_documents")
    .selectAll()
    .where("job_id", "=", job.id)
    .executeTakeFirst();
  if (existing) {
    if (existing.value !== body.value) {
      throw fail("FEEDBACK_ALREADY_PREPARED", `this job's feedback document says ${existing.value}`);
    }
    return presentPrepared(chain, identity, existing);
  }
  const poster = await ctx.db
    .selectFrom("users")
    .select("address")
    .where("id", "=", actor.userId)
    .executeTakeFirstOrThrow();
  const client = getAddress(poster.address);
  const id = crypto.randomUUID();
  const feedbackURI = feedbackUriOf(siteUrl, id);
  const payer = job.escrow_payer ? getAddress(job.escrow_payer) : client;
  // The contract that paid: the job's own (EscrowV2 for a job funded there), not only the first escrow.
  const escrow = job.escrow_address ? getAddress(job.escrow_address) : chain.escrowAddress;
  const document: z.input<typeof FeedbackDocument> = {
    agentRegistry: agentRegistryOf(chain.chainId, chain.identityRegistryAddress),
    agentId: Number(identity.agentId),
    clientAddress: `eip155:${chain.chainId}:${client}`,
    createdAt: new Date().toISOString(),
    value: body.value,
    valueDecimals: 0,
    tag1: RATING_TAG,
    proofOfPayment: {
      fromAddress: escrow,
      toAddress: settlement.to_address ? getAddress(settlement.to_address) : payer,
      chainId: String(chain.chainId),
      txHash: settlement.tx_hash as string,
    },
    settlement: {
      marketplace: siteUrl.replace(/\/+$/, ""),
      jobId: job.id,
      kind: settlement.kind,
      escrowAddress: escrow,
      txHash: settlement.tx_hash as string,
    },
    ...(body.comment ? { comment: body.comment } : {}),
  };
  // The bytes served at feedbackURI are these (the router writes the parsed object back compactly).
  const text = JSON.stringify(document);
  await ctx.db
    .insertInto("feedback_documents")
    .values({
      id,
      job_id: job.id,
      agent_id: job.agent_id,
      settlement_id: settlement.id,
      client_address: client.toLowerCase(),
      feedback_uri: feedbackURI,
      value: body.value,
      document: text,
      document_hash: keccak256(stringToBytes(text)),
    })
    .onConflict((oc) => oc.column("job_id").doNothing())
    .execute();
  // Two requests at once: the first document stands, the other is answered by the same rules.
  return prepareJobFeedback(ctx, actor, jobId, body, siteUrl);
}

function presentPrepared(
  chain: { chainId: number; reputationRegistryAddress: Address },
  identity: Registered,
  row: { feedback_uri: string; document: string; document_hash: string; value: number },
): z.input<typeof PreparedFeedback> {
  return {
    feedbackURI: row.feedback_uri,
    feedbackHash: row.document_hash,
    document: JSON.parse(row.document) as z.input<typeof FeedbackDocument>,
    call: feedbackCall(
      chain.chainId,
      chain.reputationRegistryAddress,
      identity.agentId,
      row.value,
      row.feedback_uri,
      row.document_hash as Hex,
    ),
  };
}

/** GET /v1/feedback/:id: the document exactly as hashed. */
export async function feedbackDocument(ctx: ServiceContext, id: string): Promise<z.input<typeof FeedbackDocument>> {
  const row = await ctx.db.selectFrom("feedback_documents").select("document").where("id", "=", id).executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "feedback document not found");
  return JSON.parse(row.document) as z.input<typeof FeedbackDocument>;
}

type Feedback = z.input<typeof OnchainFeedback>;

/**
 * GET /v1/agents/:id/feedback: every feedback the Reputation Registry holds for the agent, read
 * from its events, split into feedback backed by a payment of this marketplace's escrow to the agent
 * (our document at that exact URI and hash, naming a settlement that paid the agent, sent by the
 * wallet of the poster it names) and other.
 */
export async function listAgentFeedback(ctx: ServiceContext, agentId: string): Promise<z.input<typeof AgentFeedback>> {
  const chain = registriesOrThrow(ctx);
  const agent = await ctx.db.selectFrom("agents").select("id").where("id", "=", agentId).executeTakeFirst();
  if (!agent) throw fail("NOT_FOUND", "agent not found");
  const identity = await registeredIdentity(ctx, agent.id);
  const empty = {
    onchainAgentId: null,
    agentRegistry: null,
    reputationRegistry: chain.reputationRegistryAddress,
    backed: [],
    other: [],
  };
  if (!identity) return empty;

  const client = getPublicClient(chain);
  const range = {
    address: chain.reputationRegistryAddress,
    abi: reputationAbi,
    fromBlock: identity.fromBlock,
  } as const;
  const [given, revoked, responses, documents] = await Promise.all([
    client.getContractEvents({ ...range, eventName: "NewFeedback", args: { agentId: identity.agentId } }),
    client.getContractEvents({ ...range, eventName: "FeedbackRevoked", args: { agentId: identity.agentId } }),
    client.getContractEvents({ ...range, eventName: "ResponseAppended", args: { agentId: identity.agentId } }),
    ctx.db
      .selectFrom("feedback_documents as d")
      .innerJoin("escrow_settlements as s", "s.id", "d.settlement_id")
      .select([
        "d.feedback_uri",
        "d.document_hash",
        "d.client_address",
        "d.job_id",
        "s.kind",
        "s.tx_hash",
        "s.status",
        "s.amount_units",
      ])
      .where("d.agent_id", "=", agent.id)
      .execute(),
  ]);
  const key = (c: string, i: bigint | number) => `${c.toLowerCase()}:${i}`;
  const revokedKeys = new Set(revoked.map((e) => key(e.args.clientAddress as string, e.args.feedbackIndex as bigint)));
  const byUri = new Map(documents.map((d) => [d.feedback_uri, d]));
  const backed: Feedback[] = [];
  const other: Feedback[] = [];
  for (const e of given) {
    const a = e.args;
    const clientAddress = getAddress(a.clientAddress as Address);
    const index = a.feedbackIndex as bigint;
    const doc = byUri.get(a.feedbackURI as string);
    const settled =
      doc &&
      paidTheAgent(doc) &&
      doc.document_hash === (a.feedbackHash as string).toLowerCase() &&
      isAddressEqual(doc.client_address as Address, clientAddress);
    const item: Feedback = {
      clientAddress,
      feedbackIndex: Number(index),
      value: (a.value as bigint).toString(),
      valueDecimals: Number(a.valueDecimals),
      tag1: a.tag1 as string,
      tag2: a.tag2 as string,
      endpoint: a.endpoint as string,
      feedbackURI: a.feedbackURI as string,
      feedbackHash: a.feedbackHash as string,
      txHash: e.transactionHash,
      revoked: revokedKeys.has(key(clientAddress, index)),
      settlement: settled && doc ? { jobId: doc.job_id, kind: doc.kind, txHash: doc.tx_hash as string } : null,
      responses: responses
        .filter(
          (r) => key(r.args.clientAddress as string, r.args.feedbackIndex as bigint) === key(clientAddress, index),
        )
        .map((r) => ({
          responder: getAddress(r.args.responder as Address),
          responseURI: r.args.responseURI as string,
          responseHash: r.args.responseHash as string,
          txHash: r.transactionHash,
        })),
    };
    (item.settlement ? backed : other).push(item);
  }
  return {
    onchainAgentId: identity.agentId.toString(),
    agentRegistry: agentRegistryOf(chain.chainId, chain.identityRegistryAddress),
    reputationRegistry: chain.reputationRegistryAddress,
    backed,
    other,
  };
}

/** POST /v1/agents/:id/feedback/responses: appendResponse for the agent's side to send. */
export async function prepareFeedbackResponse(
  ctx: ServiceContext,
  actor: Actor,
  agentId: string,
  body: z.output<typeof RespondRequest>,
) {
  const chain = registriesOrThrow(ctx);
  const agent = await ctx.db
    .selectFrom("agents")
    .select(["id", "owner_user_id"])
    .where("id", "=", agentId)
    .executeTakeFirst();
  if (!agent) throw fail("NOT_FOUND", "agent not found");
  if (!actsForAgent(actor, agent)) throw fail("FORBIDDEN", "only the agent or its owner answers its feedback");
  const identity = await registeredIdentity(ctx, agent.id);
  if (!identity) throw fail("AGENT_NOT_REGISTERED", "the agent has no ERC-8004 identity on chain");
  const client = getAddress(body.clientAddress);
  const last = await getPublicClient(chain).readContract({
    address: chain.reputationRegistryAddress,
    abi: reputationAbi,
    functionName: "getLastIndex",
    args: [identity.agentId, client],
  });
  if (BigInt(body.feedbackIndex) > last) {
    const message = `the registry holds no feedback ${body.feedbackIndex} from ${client} for this agent`;
    throw fail("FEEDBACK_NOT_FOUND", message);
  }
  return {
    chainId: chain.chainId,
    to: chain.reputationRegistryAddress,
    data: encodeFunctionData({
      abi: reputationAbi,
      functionName: "appendResponse",
      args: [
        identity.agentId,
        client,
        BigInt(body.feedbackIndex),
        body.responseURI,
        (body.responseHash ?? `0x${"0".repeat(64)}`) as Hex,
      ],
    }),
  };
}
