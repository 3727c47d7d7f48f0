import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { RouteDef } from "@/lib/api/contract";
import { routes } from "@/lib/api/routes";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
  type TestUser,
} from "../testing/harness";

// A smoke of every route group through the real router, for the database that `npm test` runs only
// this part of the service suite on (PGlite, the embedded default; the whole suite runs on
// PostgreSQL). Each group answers a signed-in caller's ordinary request with its success status,
// which reads and writes that group's tables through the PGlite dialect and its named statements.
// A group added later without an entry here still gets every route called once (no 500).

let service: TestService;
let operator: TestUser;
let poster: TestUser;
let agent: TestAgent;
let jobId: string;

beforeAll(async () => {
  const operatorKey = generatePrivateKey();
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    operatorAddresses: [privateKeyToAccount(operatorKey).address],
  });
  operator = await newUser(service, operatorKey);
  poster = await newUser(service);
  agent = await newAgent(service);
  const created = await service.http("POST", "/v1/jobs", { token: poster.token, body: jobInput() });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  jobId = created.json.data.id;
});
afterAll(() => service.stop());

type Call = [method: string, path: () => string, as: () => string | undefined, body?: () => unknown];
const GET = (path: () => string, as: () => string | undefined): Call => ["GET", path, as];
const POST = (path: () => string, as: () => string | undefined, body: () => unknown): Call => ["POST", path, as, body];

const asPoster = () => poster.token;
const asAgent = () => agent.apiKey;
const asOperator = () => operator.token;
const nobody = () => undefined;

/** One ordinary call per route group (the OpenAPI tag), each answering its success status. */
const SMOKE: Record<string, Call[]> = {
  Agents: [GET(() => "/v1/agents/me", asAgent), GET(() => `/v1/agents/${agent.id}`, nobody)],
  Auth: [GET(() => "/v1/me", asPoster)],
  Jobs: [GET(() => `/v1/jobs/${jobId}`, asPoster), GET(() => "/v1/jobs", nobody)],
  Bids: [
    POST(
      () => `/v1/jobs/${jobId}/bids`,
      asAgent,
      () => ({ agentId: agent.id, proposedUsdc: "40", coverLetter: "I can do this well." }),
    ),
    GET(() => `/v1/jobs/${jobId}/bids`, asPoster),
  ],
  Referrals: [GET(() => "/v1/referrals/my-code", asAgent)],
  Escrow: [GET(() => "/v1/chain", nobody)],
  Progress: [],
  Development: [],
  Deliverables: [GET(() => `/v1/jobs/${jobId}/proof-checks`, asPoster)],
  Forum: [
    POST(
      () => "/v1/forum/threads",
      asPoster,
      () => ({
        title: "How do agents price research work?",
        body: "I would like to hear how others set a budget for a research job of a few hours.",
        category: "agent-economics",
      }),
    ),
    GET(() => "/v1/forum/threads", nobody),
  ],
  Evals: [GET(() => "/v1/evals/packs", nobody)],
  Admin: [GET(() => "/v1/admin/packs", asOperator)],
  Bounties: [],
  Subcontracting: [GET(() => `/v1/jobs/${jobId}/children`, asPoster)],
  Sharing: [],
  "Acceptance criteria": [GET(() => `/v1/jobs/${jobId}/criteria`, asPoster)],
  Rewards: [GET(() => "/v1/forum/rewards", nobody), GET(() => "/v1/wallet", asPoster)],
  Operations: [GET(() => "/v1/health/ready", nobody), GET(() => "/v1/stats", nobody)],
  Profiles: [GET(() => `/v1/agents/${agent.id}/profile`, nobody), GET(() => "/v1/records", nobody)],
  Reviews: [GET(() => `/v1/jobs/${jobId}/reviews`, asPoster)],
  Messages: [GET(() => `/v1/jobs/${jobId}/conversations`, asPoster)],
  Disputes: [GET(() => "/v1/me/cases", asPoster), GET(() => "/v1/disputes", asOperator)],
  Webhooks: [GET(() => `/v1/agents/${agent.id}/webhooks`, asAgent)],
  "Webhooks (people)": [GET(() => "/v1/me/webhooks", asPoster)],
  Operator: [
    GET(() => "/v1/admin/overview", asOperator),
    GET(() => "/v1/admin/people", asOperator),
    GET(() => "/v1/admin/audit", asOperator),
  ],
  Notifications: [GET(() => "/v1/notifications", asPoster), GET(() => "/v1/notifications/settings", asPoster)],
  "Saved searches": [
    POST(
      () => "/v1/saved-searches",
      asPoster,
      () => ({ name: "Research", query: { q: "leads" } }),
    ),
    GET(() => "/v1/saved-searches", asPoster),
  ],
  Identity: [],
  Milestones: [],
};

const all = Object.entries(routes) as Array<[string, RouteDef]>;
const groups = [...new Set(all.map(([, route]) => route.tag))];

describe("every route group answers through the router", () => {
  const smoked = groups.filter((tag) => (SMOKE[tag] ?? []).length > 0);
  it.each(smoked)("%s", async (tag) => {
    for (const [method, path, as, body] of SMOKE[tag]!) {
      const res = await service.http(method, path(), { token: as(), body: body?.() });
      expect(res.status, `${method} ${path()}: ${JSON.stringify(res.json)}`).toBeLessThan(300);
    }
  });

  // Groups without an ordinary call above (their routes need a funded or assigned job, a chain, or a
  // mailed token, a configured registry): every route is called once, and answers without a 500
  // (a 503 for a chain this test has none of is an answer).
  const rest = all.filter(([, route]) => (SMOKE[route.tag] ?? []).length === 0);
  it.each(rest.map(([name, route]) => [`${route.tag}: ${name}`, route] as const))("%s", async (_, route) => {
    const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) =>
      name === "position" ? "1" : name === "id" && route.path.startsWith("/v1/jobs/") ? jobId : crypto.randomUUID(),
    );
    const res = await service.http(route.method, path, {
      token: route.auth === "none" ? undefined : asPoster(),
      body: route.body ? {} : undefined,
    });
    expect(res.status, `${route.method} ${path}: ${JSON.stringify(res.json)}`).not.toBe(500);
  });
});
