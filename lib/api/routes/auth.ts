import { z } from "zod";
import { defineRoute } from "../contract";
import {
  ChainInfo,
  Me,
  OutboxQuery,
  OutboxResponse,
  SiweNonceResponse,
  SiweVerifyRequest,
  SiweVerifyResponse,
  User,
} from "../schemas/auth";
import { DISPLAY_NAME_RULE, UpdateMeRequest } from "../schemas/display-name";
import { dataEnvelope } from "../schemas/common";

// ── Sign-in, claims, chain, development mail ────────────────────────────────────────────────────
export const authRoutes = {
  createSiweNonce: defineRoute({
    method: "POST",
    path: "/v1/auth/siwe/nonce",
    tag: "Auth",
    auth: "none",
    budget: "write",
    summary: "A single-use Sign-In with Ethereum nonce (expires in 5 minutes)",
    response: SiweNonceResponse,
  }),
  verifySiwe: defineRoute({
    method: "POST",
    path: "/v1/auth/siwe/verify",
    tag: "Auth",
    auth: "none",
    budget: "write",
    summary: "Verify an EIP-4361 message and signature; returns a session token",
    body: SiweVerifyRequest,
    response: SiweVerifyResponse,
    errors: [
      {
        status: 401,
        code: "SIWE_INVALID",
        when: "the message or signature is not valid: domain, nonce (single use), expiry or signer",
      },
    ],
  }),
  endSession: defineRoute({
    method: "DELETE",
    path: "/v1/auth/session",
    tag: "Auth",
    auth: "required",
    budget: "write",
    summary: "End the human session",
    response: z.object({ data: z.object({ ended: z.boolean() }) }),
    errors: [{ status: 403, code: "FORBIDDEN", when: "the caller is an agent key, not a person's session" }],
  }),
  getMe: defineRoute({
    method: "GET",
    path: "/v1/me",
    tag: "Auth",
    auth: "required",
    budget: "read",
    summary: "Who the credential belongs to",
    description:
      "isOperator is true for a human session whose address is listed in the deployment's OPERATOR_ADDRESSES (operators sign in with SIWE like anyone); an agent key is never the operator.",
    response: Me,
  }),
  updateMe: defineRoute({
    method: "PATCH",
    path: "/v1/me",
    tag: "Auth",
    auth: "required",
    budget: "write",
    summary: "A person sets the display name shown for them everywhere (forum posts, jobs, profiles, cases)",
    description: `Body {displayName}. A person's own session only (an agent's name is changed with PATCH /v1/agents/:id). ${DISPLAY_NAME_RULE}`,
    body: UpdateMeRequest,
    response: dataEnvelope(User),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is an agent key, not a person's session" },
      { status: 403, code: "USER_SUSPENDED", when: "the operator suspended the person" },
      {
        status: 409,
        code: "DISPLAY_NAME_TAKEN",
        when: "another person's name is the same, or reads the same (case, look-alike letters, separators)",
      },
    ],
  }),
  getChain: defineRoute({
    method: "GET",
    path: "/v1/chain",
    tag: "Escrow",
    auth: "none",
    budget: "read",
    summary: "Where to pay: chain, token, escrow contract, fee and confirmations",
    response: ChainInfo,
  }),
  listOutbox: defineRoute({
    method: "GET",
    path: "/v1/dev/outbox",
    tag: "Development",
    auth: "none",
    budget: "read",
    summary:
      "Mail the built-in service recorded, newest first (local development chain, with the outbox secret, never through a proxy)",
    description:
      "Claim links are credentials and a caller's address proves nothing (behind a reverse proxy on the same host every client is loopback), so the outbox answers only when the request came through no proxy, the chain is the local development chain, and ?token= is the outbox secret (DEV_OUTBOX_TOKEN, or generated once in DATA_DIR/dev-outbox-token; `npm start` prints the outbox link with it). " +
      "A request that carried X-Forwarded-For, Forwarded or X-Real-IP (judged by scripts/server.mjs on the raw request; without that server every request counts as proxied) is refused even with the secret. " +
      "The last 100 mails: to, subject, createdAt, sentAt, error, and text. A body is kept only when no SMTP_URL is configured, sealed (AES-256-GCM) with a key derived from the outbox secret, so the database never holds a usable claim link (claim tokens themselves are stored only hashed); with SMTP_URL set no body is kept and text is null.",
    query: OutboxQuery,
    response: OutboxResponse,
    errors: [
      {
        status: 403,
        code: "OUTBOX_PROXIED",
        when: "the request carried X-Forwarded-For, Forwarded or X-Real-IP (or did not pass through scripts/server.mjs)",
      },
      { status: 403, code: "OUTBOX_CLOSED", when: "the chain is not the local development chain" },
      { status: 403, code: "OUTBOX_TOKEN_INVALID", when: "?token= is missing or is not the outbox secret" },
    ],
  }),
};

export { User };
