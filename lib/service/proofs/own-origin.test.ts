import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proberOptions } from "../deliverables/check-deliverable";
import { claim, openBounty } from "../testing/job-modes-support";
import {
  GENEROUS_BUDGETS,
  OFFLINE_CHAIN,
  newAgent,
  startTestService,
  type TestAgent,
  type TestService,
} from "../testing/harness";
import { serviceFetchPolicy } from "./fetch-policy";
import { OWN_ORIGIN_HEADER } from "./own-origin";

// The prober is no scanner, and no proof comes without work (it must not be turned on private hosts, and a deliverable must be real work):
// neither a deliverable nor a machine-checked criterion may ever pass by fetching this service
// itself, by any name, address spelling, redirect or alias; loopback is open only on the local chain.

const SITE = "https://market.example.test";
const MARKER = "own-origin-marker-5c1d";

let service: TestService;
let appPort: number;
let site: http.Server;
let siteBase: string;

beforeAll(async () => {
  // As `npm start` runs it: local chain, PROBE_ALLOW_LOOPBACK on, a SITE_URL.
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, probeAllowLoopback: true, siteUrl: SITE });
  appPort = Number(new URL(service.baseUrl).port);
  // A loopback deliverable server of the developer (allowed on the local chain), that can also
  // redirect to, or act as a proxy for, the app itself.
  site = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/good") {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(`<html><head><title>Leads</title></head><body><h1>Leads</h1><p>${MARKER}</p></body></html>`);
    } else if (url.pathname === "/redirect") {
      res.writeHead(302, { location: url.searchParams.get("to")! }).end();
    } else if (url.pathname === "/proxy") {
      // An alias the prober cannot see through: it forwards to the app and passes its answer on.
      http.get(`${service.baseUrl}${url.searchParams.get("path")}`, (upstream) => {
        res.writeHead(upstream.statusCode ?? 502, upstream.headers);
        upstream.pipe(res);
      });
    } else {
      res.writeHead(404).end("not found");
    }
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteBase = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  // Names the tests make up: one that resolves to the app's own loopback address.
  proberOptions.resolve = async (hostname) => {
    if (hostname === "alias.example.test") return ["127.0.0.1"];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  };
  proberOptions.timeoutMs = 3_000;
});
afterAll(async () => {
  proberOptions.resolve = undefined;
  proberOptions.timeoutMs = undefined;
  site?.close();
  await service?.stop();
});

/** A funded bounty with a proof marker, claimed by a fresh agent: ready for a submission. */
async function claimedJob(
  svc: TestService,
  overrides: Record<string, unknown> = {},
): Promise<{ jobId: string; agent: TestAgent }> {
  const { job } = await openBounty(svc, {
    inputData: { budgetType: "bid", proofHoldHours: 0, proofContentMarker: MARKER },
    ...overrides,
  });
  const agent = await newAgent(svc);
  expect((await claim(svc, agent, job.id)).status).toBe(200);
  // Funding is not what these tests are about: mark the escrow as registered.
  await svc.db
    .updateTable("jobs")
    .set({ escrow_tx_hash: `0x${randomBytes(32).toString("hex")}` })
    .where("id", "=", job.id)
    .execute();
  return { jobId: job.id, agent };
}

const submit = (svc: TestService, jobId: string, agent: TestAgent, url: string) =>
  svc.http("POST", `/v1/jobs/${jobId}/submit`, { token: agent.apiKey, body: { outputData: { url } } });

async function statusOf(svc: TestService, jobId: string) {
  return (await svc.db.selectFrom("jobs").select("status").where("id", "=", jobId).executeTakeFirstOrThrow()).status;
}

describe("a deliverable on this service itself", () => {
  it("the job's own public page is refused at submission (400 DELIVERABLE_URL_NOT_ALLOWED), by its site URL and by every spelling of the app's own address and port", async () => {
    // The marker is private to the parties, but a poster may well quote it in the public
    // description; then the job's public page carries it and would "prove" itself.
    const { jobId, agent } = await claimedJob(service, {
      description: `Publish a page that shows the words ${MARKER} near its top, with the report below it.`,
    });
    const own = await service.http("GET", `/v1/jobs/${jobId}/public`);
    expect(JSON.stringify(own.json)).toContain(MARKER);

    const path = `/v1/jobs/${jobId}/public`;
    for (const url of [
      `${SITE}/jobs/${jobId}`,
      `${SITE}:8443${path}`,
      `http://MARKET.example.test.${path}`,
      `${service.baseUrl}${path}`,
      `http://localhost:${appPort}${path}`,
      `http://app.localhost:${appPort}${path}`,
      `http://[::1]:${appPort}${path}`,
      `http://0.0.0.0:${appPort}${path}`,
      `http://127.1:${appPort}${path}`,
      `http://2130706433:${appPort}${path}`,
      `http://0x7f000001:${appPort}${path}`,
      `http://127.0.0.2:${appPort}${path}`,
      `http://[::ffff:127.0.0.1]:${appPort}${path}`,
    ]) {
      const res = await submit(service, jobId, agent, url);
      expect(res.status, `${url}: ${JSON.stringify(res.json)}`).toBe(400);
      expect(res.json).toMatchObject({ statusCode: 400, error: "Bad Request", code: "DELIVERABLE_URL_NOT_ALLOWED" });
      expect(res.json.messages[0]).toMatch(/this marketplace itself/);
    }
    expect(await statusOf(service, jobId)).toBe("IN_PROGRESS");
    // Refused before any probe: nothing was fetched, nothing recorded.
    expect(await service.db.selectFrom("proof_checks").select("id").where("job_id", "=", jobId).execute()).toHaveLength(
      0,
    );
  });

  it("a redirect to the app, a name that resolves to it, and a proxy in front of it never pass the probe", async () => {
    const { jobId, agent } = await claimedJob(service);
    const path = `/v1/jobs/${jobId}/public`;
    for (const url of [
      `${siteBase}/redirect?to=${encodeURIComponent(`${service.baseUrl}${path}`)}`,
      `${siteBase}/redirect?to=${encodeURIComponent(`http://localhost:${appPort}${path}`)}`,
      `${siteBase}/redirect?to=${encodeURIComponent(`${SITE}${path}`)}`,
      `http://alias.example.test:${appPort}${path}`,
      `${siteBase}/proxy?path=${encodeURIComponent(path)}`,
    ]) {
      const res = await submit(service, jobId, agent, url);
      expect(res.status, `${url}: ${JSON.stringify(res.json)}`).toBe(422);
      expect(res.json).toMatchObject({ code: "PROOF_CHECK_FAILED", proofCheckStatus: "BLOCKED" });
      expect(res.json.proofCheckReason).toMatch(/this marketplace|host localhost/);
    }
    expect(await statusOf(service, jobId)).toBe("IN_PROGRESS");

    // The developer's own loopback servers still work on the local chain.
    const ok = await submit(service, jobId, agent, `${siteBase}/good`);
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(ok.json.data.status).toBe("REVIEW");
  });

  it("every answer of the service names its site, errors included", async () => {
    expect((await service.http("GET", "/v1/openapi.json")).headers.get(OWN_ORIGIN_HEADER)).toBe(SITE);
    expect((await service.http("GET", "/v1/no-such-route")).headers.get(OWN_ORIGIN_HEADER)).toBe(SITE);
    expect((await service.http("POST", "/v1/jobs", { body: {} })).headers.get(OWN_ORIGIN_HEADER)).toBe(SITE);
  });
});

describe("machine-checked criteria on this service itself", () => {
  it("are refused at job creation (400 CRITERION_URL_NOT_ALLOWED)", async () => {
    const { poster } = await openBounty(service);
    for (const url of [
      `${SITE}/v1/openapi.json`,
      `${service.baseUrl}/v1/openapi.json`,
      `http://localhost:${appPort}/`,
      `http://[::1]:${appPort}/`,
    ]) {
      const res = await service.http("POST", "/v1/jobs", {
        token: poster.token,
        body: {
          templateId: "custom-v1",
          title: "Check our API",
          description: "A job whose criterion points at the marketplace itself.",
          inputData: { budgetType: "bid" },
          budget: "40",
          acceptanceCriteria: [
            { description: "The page answers 200", check: { type: "http_status", url, equals: 200 } },
          ],
        },
      });
      expect(res.status, `${url}: ${JSON.stringify(res.json)}`).toBe(400);
      expect(res.json.code).toBe("CRITERION_URL_NOT_ALLOWED");
    }
  });

  it("never pass when checked: a stored criterion URL, the deliverable URL or a redirect that reaches the app is a FAIL", async () => {
    const { jobId, agent } = await claimedJob(service, {
      acceptanceCriteria: [
        { description: "The deliverable answers 200", check: { type: "http_status", equals: 200 } },
        { description: "Our API answers 200", check: { type: "http_status", url: `${siteBase}/good`, equals: 200 } },
      ],
    });
    // A job stored before this rule (or by another path) with a criterion aimed at the app itself.
    const job = await service.db
      .selectFrom("jobs")
      .select("acceptance_criteria")
      .where("id", "=", jobId)
      .executeTakeFirstOrThrow();
    const criteria = job.acceptance_criteria as Array<{
      id: string;
      check: Record<string, unknown>;
      description: string;
    }>;
    criteria[1]!.check = { type: "http_status", url: `${service.baseUrl}/v1/openapi.json`, equals: 200 };
    const redirectToApp = `${siteBase}/redirect?to=${encodeURIComponent(`http://127.1:${appPort}/v1/openapi.json`)}`;
    await service.db
      .updateTable("jobs")
      .set({
        acceptance_criteria: JSON.stringify(criteria),
        status: "REVIEW",
        submitted_at: new Date(),
        output_data: JSON.stringify({ url: redirectToApp }),
      })
      .where("id", "=", jobId)
      .execute();

    const res = await service.http("POST", `/v1/jobs/${jobId}/criteria/evaluate`, { token: agent.apiKey });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const byId = Object.fromEntries(
      (res.json.data.criteria as Array<{ id: string; status: string; detail: string }>).map((c) => [c.id, c]),
    );
    expect(byId["ac-1"]).toMatchObject({ status: "FAIL" });
    expect(byId["ac-1"]!.detail).toMatch(/this marketplace/);
    expect(byId["ac-2"]).toMatchObject({ status: "FAIL" });
    expect(byId["ac-2"]!.detail).toMatch(/this marketplace/);
    expect(res.json.data).toMatchObject({ approvalBlocked: true });
  });
});

describe("loopback outside the local chain", () => {
  it("PROBE_ALLOW_LOOPBACK alone opens nothing: on a real chain a loopback deliverable and criterion are refused", async () => {
    const realChain = { ...OFFLINE_CHAIN, network: "base", chainId: 8453 } as unknown as typeof OFFLINE_CHAIN;
    expect(
      serviceFetchPolicy({ siteUrl: SITE, listen: null, probeAllowLoopback: true, chain: realChain }).allowLoopback,
    ).toBe(false);
    expect(
      serviceFetchPolicy({ siteUrl: SITE, listen: null, probeAllowLoopback: true, chain: null }).allowLoopback,
    ).toBe(false);
    expect(
      serviceFetchPolicy({ siteUrl: SITE, listen: null, probeAllowLoopback: true, chain: OFFLINE_CHAIN }).allowLoopback,
    ).toBe(true);

    const production = await startTestService({
      rateBudgets: GENEROUS_BUDGETS,
      probeAllowLoopback: true,
      chain: realChain,
    });
    try {
      const { jobId, agent } = await claimedJob(production, {
        acceptanceCriteria: [
          { description: "The docs answer 200", check: { type: "http_status", url: `${siteBase}/good`, equals: 200 } },
        ],
      });
      const res = await submit(production, jobId, agent, `${siteBase}/good`);
      expect(res.status, JSON.stringify(res.json)).toBe(422);
      expect(res.json).toMatchObject({ code: "PROOF_CHECK_FAILED", proofCheckStatus: "DISALLOWED_HOST" });
      await production.db
        .updateTable("jobs")
        .set({ status: "REVIEW", submitted_at: new Date(), output_data: JSON.stringify({ url: `${siteBase}/good` }) })
        .where("id", "=", jobId)
        .execute();
      const evaluated = await production.http("POST", `/v1/jobs/${jobId}/criteria/evaluate`, { token: agent.apiKey });
      expect(evaluated.json.data.criteria[0]).toMatchObject({ status: "FAIL" });
      expect(evaluated.json.data.criteria[0].detail).toMatch(/loopback/);
    } finally {
      await production.stop();
    }
  });
});
