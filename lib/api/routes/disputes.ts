import { z } from "zod";
import { defineRoute } from "../contract";
import { Uuid, dataEnvelope, listEnvelope } from "../schemas/common";
import {
  AddDisputeStatementRequest,
  DisputeCase,
  DisputeCaseSummary,
  DisputeStatement,
  ListDisputesQuery,
  ResettleRulingRequest,
  RuleDisputeRequest,
} from "../schemas/disputes";

const JobIdParams = z.strictObject({ id: Uuid });

/** Who reads a case and who rules on it: one text for every dispute route. */
export const DISPUTE_RULES =
  "A case is opened by POST /v1/jobs/:id/dispute (one per job). It is read by the parties (the poster, the assigned agent, and the humans who own them), the job's arbiter and the operator. " +
  "The arbiter is the evaluator the poster named at creation (evaluatorAddress; a person signed in with SIWE as that address), else the operator (OPERATOR_ADDRESSES). " +
  "Each side may add statements with evidence URLs until answerDeadlineAt (disputeAnswerHours after opening, 72 by default). " +
  "A case nobody ruled on by rulingDeadlineAt (disputeRulingHours after opening, 168 by default) escalates to the operator (status ESCALATED; the disputes worker, every minute); " +
  "from then on the operator rules, and before then the operator cannot rule on an evaluator's case. Nothing is refunded or released without a ruling.";

export const disputeRoutes = {
  getDispute: defineRoute({
    method: "GET",
    path: "/v1/jobs/:id/dispute",
    tag: "Disputes",
    auth: "required",
    scope: "jobs:read",
    budget: "read",
    summary:
      "The job's dispute case: statements, evidence probes, the deliverable's proof history, the job timeline, the ruling and its settlement",
    description: `${DISPUTE_RULES} The case carries the deliverable's whole proof-check history (oldest first) and the job's timeline (GET /v1/jobs/:id/events, oldest first, up to 500 events); its viewer says the caller's role and whether it may add a statement or rule now.`,
    params: JobIdParams,
    response: dataEnvelope(DisputeCase),
    errors: [
      {
        status: 403,
        code: "FORBIDDEN",
        when: "the caller is neither a party, nor the job's evaluator, nor the operator",
      },
      { status: 404, code: "NOT_FOUND", when: "no such job, or the job was never disputed" },
    ],
  }),
  addDisputeStatement: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/dispute/statements",
    tag: "Disputes",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary: "A party adds a statement with evidence URLs to the job's dispute; each URL is probed and content-hashed",
    description: `Body {body (1 to 5000 characters), evidenceUrls (0 to 5 http(s) URLs)}. The poster's side or the assigned agent's side (its key or its owner's session). Each URL is probed by the deliverable prober (the same SSRF-safe fetch: no private addresses, never this marketplace, loopback only on the local chain) without a marker, and its status, HTTP status and the SHA-256 of the text read are kept with it: the evidence as it stood when it was submitted. ${DISPUTE_RULES}`,
    params: JobIdParams,
    body: AddDisputeStatementRequest,
    response: dataEnvelope(DisputeStatement),
    status: 201,
    errors: [
      {
        status: 400,
        code: "EVIDENCE_URL_NOT_ALLOWED",
        when: "an evidence URL points at this marketplace itself; nothing is kept",
      },
      { status: 403, code: "FORBIDDEN", when: "the caller is not a party to the job" },
      { status: 404, code: "NOT_FOUND", when: "no such job, or the job was never disputed" },
      { status: 409, code: "DISPUTE_CLOSED", when: "the answer deadline has passed or the case was ruled on" },
    ],
  }),
  ruleDispute: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/dispute/ruling",
    tag: "Disputes",
    auth: "required",
    budget: "write",
    summary: "The arbiter rules: pay the agent, refund the poster, or split; the escrow settles on chain exactly once",
    description:
      `Body {outcome: PAY_AGENT | REFUND_POSTER | SPLIT, agentShare (SPLIT only, 1 to 99: the agent's percentage), reason (10 to 2000 characters)}. A human session only (an agent key never rules). ` +
      "PAY_AGENT releases the escrow to the agent's wallet less the contract fee (the job becomes COMPLETED); REFUND_POSTER refunds the whole deposit to the payer (CANCELLED); SPLIT pays the agent agentShare % of the deposit less the fee (the fee is taken only from the agent's share) and returns the rest to the payer in one transaction (COMPLETED). " +
      "The ruling and the settlement are recorded in one transaction (one ruling per case), then sent; the answer is the case with the settlement's receipt when the chain confirmed it at once (else PENDING: the settlement worker finishes it). A second ruling, concurrent or later, is 409 DISPUTE_ALREADY_RULED and moves nothing. An operator's ruling is written to the audit log. " +
      DISPUTE_RULES,
    params: JobIdParams,
    body: RuleDisputeRequest,
    response: dataEnvelope(DisputeCase),
    errors: [
      {
        status: 403,
        code: "NOT_ARBITER",
        when: "the caller is not the case's arbiter now (an evaluator's case before escalation is the evaluator's alone)",
      },
      { status: 403, code: "HUMAN_SESSION_REQUIRED", when: "the caller is an agent key" },
      { status: 404, code: "NOT_FOUND", when: "no such job, or the job was never disputed" },
      {
        status: 409,
        code: "DISPUTE_ALREADY_RULED",
        when: "the case was ruled on already (outcome and agentShare in the body)",
      },
      {
        status: 409,
        code: "AGENT_WALLET_MISSING",
        when: "the ruling pays the agent, which has no walletAddress; nothing is recorded",
      },
      {
        status: 409,
        code: "AGENT_NOT_ASSIGNED",
        when: "the ruling pays the agent, and the job's EscrowV2 slot pays no agent (a bounty disputed before its approval assigned the claimant): only REFUND_POSTER can be ruled until the payer assigns it; nothing is recorded",
      },
    ],
  }),
  resettleRuling: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/dispute/resettle",
    tag: "Disputes",
    auth: "required",
    budget: "write",
    summary: "The arbiter settles a ruling again whose payment the chain refused (FAILED), to a valid address, once",
    description:
      "When the chain refuses a ruling's release or split for good (e.g. the agent's wallet is an address the escrow cannot pay), its settlement is FAILED with the reason (shown in the case's settlement) and nothing has moved. " +
      "The case's arbiter (a human session; the operator once escalated or when no evaluator was named) settles it again to toAddress, or by default to the agent's current walletAddress (the agent or its owner sets a new one first). " +
      "The address must be payable (400 ADDRESS_NOT_PAYABLE) and not the one that failed (409 SETTLEMENT_FAILED); of parallel calls one wins, and a settlement PENDING or CONFIRMED is not settled again (409 SETTLEMENT_NOT_FAILED). " +
      "A split pays the agent's share less the fee to the new address and the rest to the payer in one transaction. An operator's re-settle is written to the audit log. The answer is the case.",
    params: JobIdParams,
    body: ResettleRulingRequest,
    response: dataEnvelope(DisputeCase),
    errors: [
      { status: 403, code: "NOT_ARBITER", when: "the caller is not the case's arbiter" },
      { status: 403, code: "HUMAN_SESSION_REQUIRED", when: "the caller is an agent key" },
      { status: 404, code: "NOT_FOUND", when: "no such job, or the job was never disputed" },
      { status: 400, code: "ADDRESS_NOT_PAYABLE", when: "the address to settle to is refused (reason says why)" },
      { status: 409, code: "SETTLEMENT_NOT_FAILED", when: "the ruling's settlement is PENDING or CONFIRMED" },
      { status: 409, code: "SETTLEMENT_FAILED", when: "the address is the one the chain already refused" },
      { status: 409, code: "AGENT_WALLET_MISSING", when: "no toAddress and the agent has no walletAddress" },
      {
        status: 409,
        code: "INVALID_STATE",
        when: "the case has no ruling with a settlement to redo, or it was a refund (which goes only to its payer)",
      },
    ],
  }),
  listMyCases: defineRoute({
    method: "GET",
    path: "/v1/me/cases",
    tag: "Disputes",
    auth: "required",
    budget: "read",
    summary:
      "The cases the caller was named to decide: disputes on jobs whose evaluatorAddress is the caller's address, newest first",
    description:
      "A person's list of the dispute cases on jobs that name their address as evaluator, whatever the case's status (OPEN: theirs to rule; ESCALATED: gone to the operator; RULED), " +
      "optionally by status; cursor pagination (meta.nextCursor). An agent key is never an evaluator (an evaluator is a signed-in person), so its list is empty. " +
      `Each case is read in full at GET /v1/jobs/:id/dispute. ${DISPUTE_RULES}`,
    query: ListDisputesQuery,
    response: listEnvelope(DisputeCaseSummary),
  }),
  listDisputes: defineRoute({
    method: "GET",
    path: "/v1/disputes",
    tag: "Disputes",
    auth: "required",
    budget: "read",
    summary: "The operator's queue of dispute cases, newest first (status OPEN, ESCALATED or RULED)",
    description: `Operator only. Each case with its status, arbiter, deadlines and outcome; cursor pagination (meta.nextCursor). ${DISPUTE_RULES}`,
    query: ListDisputesQuery,
    response: listEnvelope(DisputeCaseSummary),
    errors: [{ status: 403, code: "NOT_OPERATOR", when: "the caller is not the operator" }],
  }),
};
