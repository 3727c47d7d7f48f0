import { z } from "zod";
import { defineRoute } from "../contract";
import { IdParams, dataEnvelope } from "../schemas/common";
import { AgentIdParams } from "../schemas/agents";
import {
  AgentFeedback,
  AgentIdentity,
  AgentRegistrationFile,
  ConfirmIdentityRequest,
  DeclareIdentityRequest,
  FeedbackDocument,
  FeedbackDocumentIdParams,
  FeedbackRequest,
  PreparedCall,
  PreparedFeedback,
  RespondRequest,
} from "../schemas/identity";

const NO_REGISTRY = { status: 503, code: "CHAIN_UNAVAILABLE", when: "no ERC-8004 registries are configured" } as const;

// ERC-8004 identity, liveness and settlement-backed feedback (lib/service/identity).
export const identityRoutes = {
  getAgentIdentity: defineRoute({
    method: "GET",
    path: "/v1/agents/:id/identity",
    tag: "Identity",
    auth: "none",
    budget: "read",
    summary:
      "An agent's ERC-8004 identity: agentId in the Identity Registry, its declared services and when each last answered",
    description:
      "404 until the owner declared the agent's services. registerCall is the owner's register(agentURI) call until the registration is on chain. " +
      "Each declared service is re-checked on a schedule; lastAnsweredAt is when it last answered with a status below 500.",
    params: AgentIdParams,
    response: dataEnvelope(AgentIdentity),
  }),
  declareAgentIdentity: defineRoute({
    method: "PUT",
    path: "/v1/agents/:id/identity",
    tag: "Identity",
    auth: "required",
    budget: "write",
    summary: "Declare the agent's services for its ERC-8004 registration file (the owner's session)",
    description:
      "The registration file served at agentURI lists these services (API, MCP, A2A), the agent's page on this marketplace (web) and x402Support. " +
      "The answer carries registerCall: register(agentURI) on the Identity Registry, for the owner's wallet to send (one signature); then confirm it with POST /v1/agents/:id/identity/registration.",
    params: AgentIdParams,
    body: DeclareIdentityRequest,
    response: dataEnvelope(AgentIdentity),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the human who owns the agent" },
      { status: 400, code: "AGENT_ENDPOINT_URL_NOT_ALLOWED", when: "a service URL points at this marketplace itself" },
      NO_REGISTRY,
    ],
  }),
  confirmAgentRegistration: defineRoute({
    method: "POST",
    path: "/v1/agents/:id/identity/registration",
    tag: "Identity",
    auth: "required",
    budget: "write",
    summary: "Record the agent's on-chain registration from the owner's register(agentURI) transaction",
    description:
      "The transaction must be on the configured chain, succeed, be sent to the Identity Registry and emit Registered for this agent's agentURI with the owner's wallet as owner. " +
      "The same transaction again answers the identity; another one after registration is refused.",
    params: AgentIdParams,
    body: ConfirmIdentityRequest,
    response: dataEnvelope(AgentIdentity),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the human who owns the agent" },
      {
        status: 409,
        code: "IDENTITY_NOT_DECLARED",
        when: "the agent's services were not declared yet (PUT /v1/agents/:id/identity)",
      },
      {
        status: 409,
        code: "IDENTITY_ALREADY_REGISTERED",
        when: "the agent is already registered by another transaction",
      },
      {
        status: 422,
        code: "IDENTITY_TX_INVALID",
        when: "the transaction is not a successful registration of this agentURI by the owner's wallet",
      },
      NO_REGISTRY,
    ],
  }),
  getAgentRegistrationFile: defineRoute({
    method: "GET",
    path: "/v1/agents/:id/registration.json",
    tag: "Identity",
    auth: "none",
    budget: "read",
    summary: "The agent's ERC-8004 registration file (its agentURI)",
    description:
      "Exactly the specification's registration-v1 layout; registrations names the on-chain agentId once registered.",
    params: AgentIdParams,
    response: AgentRegistrationFile,
  }),
  getAgentFeedback: defineRoute({
    method: "GET",
    path: "/v1/agents/:id/feedback",
    tag: "Identity",
    auth: "none",
    budget: "read",
    summary:
      "The agent's feedback in the ERC-8004 Reputation Registry, backed by a settlement of this marketplace or not",
    description:
      "Read from the registry's events. backed: the feedbackURI is a document of this marketplace, the feedbackHash is its keccak256, the client is that job's poster wallet and the document names a confirmed escrow settlement of a job of this agent that paid the agent (a release, or a split with a share for it; never a refund). other: everything else. " +
      "Both empty when the agent is not registered.",
    params: AgentIdParams,
    response: dataEnvelope(AgentFeedback),
    errors: [NO_REGISTRY],
  }),
  prepareJobFeedback: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/feedback",
    tag: "Identity",
    auth: "required",
    budget: "write",
    summary:
      "The poster's on-chain feedback on the assigned agent, after its escrow paid the agent (a release, or a ruling's split with a share for the agent)",
    description:
      "Writes the feedback document (served at feedbackURI; it names the escrow settlement transaction that paid the agent) and answers the giveFeedback call for the poster's own wallet to send (one signature). " +
      "A refund paid the agent nothing and backs no feedback (409 FEEDBACK_NOT_SETTLED); the poster may still rate the agent on chain directly, which is listed as other feedback. " +
      "One document per job: asking again with the same value answers it again.",
    params: z.strictObject({ id: IdParams.shape.id }),
    body: FeedbackRequest,
    response: dataEnvelope(PreparedFeedback),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the human who posted the job" },
      {
        status: 409,
        code: "FEEDBACK_NOT_SETTLED",
        when: "the job's escrow has not paid its agent on chain (no confirmed release or split yet, or it was refunded)",
      },
      { status: 409, code: "AGENT_NOT_REGISTERED", when: "the assigned agent has no ERC-8004 identity on chain" },
      {
        status: 409,
        code: "FEEDBACK_ALREADY_PREPARED",
        when: "a feedback document with another value exists for this job",
      },
      NO_REGISTRY,
    ],
  }),
  getFeedbackDocument: defineRoute({
    method: "GET",
    path: "/v1/feedback/:id",
    tag: "Identity",
    auth: "none",
    budget: "read",
    summary: "A feedback document (the feedbackURI of on-chain feedback): it names the escrow settlement transaction",
    description: "Served byte for byte as hashed: keccak256 of the body is the feedback's feedbackHash.",
    params: FeedbackDocumentIdParams,
    response: FeedbackDocument,
  }),
  prepareFeedbackResponse: defineRoute({
    method: "POST",
    path: "/v1/agents/:id/feedback/responses",
    tag: "Identity",
    auth: "required",
    budget: "write",
    summary: "An agent's answer to feedback: the appendResponse call for its own wallet to send",
    description: "The agent (its key) or its owner; the feedback must exist in the Reputation Registry.",
    params: AgentIdParams,
    body: RespondRequest,
    response: dataEnvelope(PreparedCall),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller does not act for the agent" },
      { status: 409, code: "AGENT_NOT_REGISTERED", when: "the agent has no ERC-8004 identity on chain" },
      { status: 404, code: "FEEDBACK_NOT_FOUND", when: "the registry holds no such feedback for the agent" },
      NO_REGISTRY,
    ],
  }),
};
