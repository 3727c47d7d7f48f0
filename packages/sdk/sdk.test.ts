import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookHeaders } from "@/lib/api/webhooks";
import { routes } from "@/lib/api/routes";
import type { RouteDef } from "@/lib/api/contract";
import { uniqueText } from "@/lib/testing/unique-text";
import {
  GENEROUS_BUDGETS,
  claimLinkFor,
  jobInput,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "@/lib/service/testing/harness";

/**
 * The SDK as its users get it: built (npm run sdk:build), packed (npm pack), installed from the
 * tarball into a project outside this repository with nothing but zod beside it (offline: zod is
 * packed from this repository's node_modules), then used against a real service on loopback, as a
 * library (imported from that project) and as the `awm` binary that npm linked there.
 */
const REPO = path.resolve(__dirname, "../..");
const SDK_DIR = path.join(REPO, "packages/sdk");

function run(
  file: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; timeoutMs?: number } = {},
) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd,
        env: options.env as NodeJS.ProcessEnv,
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 16 << 20,
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

async function npm(args: string[], cwd: string) {
  // A clean environment: no npm_config_* inherited from the `npx vitest` that runs this file.
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  };
  const result = await run("npm", args, { cwd, env, timeoutMs: 180_000 });
  if (result.code !== 0) throw new Error(`npm ${args.join(" ")} failed (${result.code}):\n${result.stderr}`);
  return result.stdout;
}

type Sdk = typeof import("./src/index");

let service: TestService;
let tmp: string;
let project: string;
let sdk: Sdk;
let poster: TestUser;
/** A skill only this run's jobs carry, so lists are exactly ours on a shared database. */
const SKILL = `sdk${randomBytes(4).toString("hex")}`;
const jobIds: string[] = [];

beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, probeAllowLoopback: true });
  const built = await run(process.execPath, [path.join(SDK_DIR, "build.mjs")], {
    cwd: REPO,
    env: { PATH: process.env.PATH },
  });
  expect(built.code, built.stderr).toBe(0);

  tmp = await mkdtemp(path.join(os.tmpdir(), "awm-sdk-"));
  expect(path.relative(REPO, tmp).startsWith("..")).toBe(true);
  await npm(["pack", "--pack-destination", tmp, "--ignore-scripts"], SDK_DIR);
  await npm(["pack", "--pack-destination", tmp, "--ignore-scripts"], path.join(REPO, "node_modules/zod"));
  const tarballs = (await readdir(tmp)).filter((f) => f.endsWith(".tgz"));
  expect(tarballs.sort()).toEqual([
    "agent-work-marketplace-sdk-0.1.0.tgz",
    expect.stringMatching(/^zod-4\.\d+\.\d+\.tgz$/),
  ]);

  project = path.join(tmp, "consumer");
  await mkdir(project);
  await writeFile(
    path.join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  await npm(["install", "--offline", ...tarballs.map((t) => path.join(tmp, t))], project);
  sdk = (await import(
    pathToFileURL(path.join(project, "node_modules/@agent-work-marketplace/sdk/dist/index.js")).href
  )) as Sdk;

  poster = await newUser(service);
  for (let i = 0; i < 5; i++) {
    const job = await poster.client.createJob({
      body: jobInput({ title: `SDK job ${i} ${SKILL}`, requiredSkills: [SKILL] }),
    });
    jobIds.push(job.data.id);
  }
}, 600_000);

afterAll(async () => {
  await service?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe("the packed SDK, installed outside the repository", () => {
  it("is one package with zod as its only dependency; it resolves its own zod", async () => {
    const manifest = JSON.parse(
      await readFile(path.join(project, "node_modules/@agent-work-marketplace/sdk/package.json"), "utf8"),
    );
    expect(Object.keys(manifest.dependencies)).toEqual(["zod"]);
    expect(await readdir(path.join(project, "node_modules"))).toEqual(
      expect.arrayContaining(["@agent-work-marketplace", "zod"]),
    );
    expect(sdk.SDK_VERSION).toBe("0.1.0");
    // The same route table as the app's, by construction.
    expect(Object.keys(sdk.routes).sort()).toEqual(Object.keys(routes).sort());
  });

  it("signs up an agent, iterates every page of the board, bids, and reports refusals as typed ApiError", async () => {
    const anonymous = sdk.createAwmClient({ baseUrl: service.baseUrl });
    const signup = await anonymous.signUpAgent({
      body: { ownerEmail: `sdk-${randomUUID()}@example.test`, name: "SDK agent" },
    });
    const agent = sdk.createAwmClient({ baseUrl: service.baseUrl, apiKey: signup.data.apiKey });
    expect((await agent.heartbeat({})).data.status).toBe("ACTIVE");

    const seen: string[] = [];
    const counting = sdk.createAwmClient({
      baseUrl: service.baseUrl,
      apiKey: signup.data.apiKey,
      fetch: (url, init) => {
        seen.push(String(url));
        return fetch(url, init);
      },
    });
    const listed = [];
    for await (const job of counting.paginate(sdk.routes.listJobs, { query: { skills: SKILL, limit: 2 } }))
      listed.push(job.id);
    expect(listed.sort()).toEqual([...jobIds].sort());
    expect(seen).toHaveLength(3);
    expect(seen.slice(1).every((url) => new URL(url).searchParams.get("cursor"))).toBe(true);

    const bid = await agent.placeBid({
      params: { id: jobIds[0]! },
      body: { agentId: signup.data.agent.id, proposedUsdc: "35.5" },
    });
    expect(bid.data).toMatchObject({ jobId: jobIds[0], proposedUsdc: "35.5", status: "PENDING" });
    const posterSees = await poster.client.listJobBids({ params: { jobId: jobIds[0]! } });
    expect(posterSees.data.map((b) => b.id)).toContain(bid.data.id);

    const again = await agent
      .placeBid({ params: { id: jobIds[0]! }, body: { agentId: signup.data.agent.id, proposedUsdc: "30" } })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(sdk.ApiError);
    const error = again as InstanceType<Sdk["ApiError"]>;
    expect(error).toMatchObject({ status: 409, code: "BID_ALREADY_PLACED" });
    if (!error.is("BID_ALREADY_PLACED")) throw new Error("narrowing");
    expect(error.extra.existingBidId).toBe(bid.data.id);

    const anonymousRead = await anonymous.getJob({ params: { id: jobIds[0]! } }).catch((e: unknown) => e);
    expect(anonymousRead).toMatchObject({ status: 401 });
  });

  it("retries a read through 503s, waiting the Retry-After it was given; a write without a key it honours is sent once", async () => {
    // A loopback proxy in front of the service that answers 503 to the first two requests.
    let failuresLeft = 2;
    const arrivals: Array<{ method: string; at: number }> = [];
    const proxy = http.createServer((req, res) => {
      arrivals.push({ method: req.method!, at: performance.now() });
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        res.writeHead(503, {
          "content-type": "application/json",
          ...(failuresLeft === 1 ? { "retry-after": "1" } : {}),
        });
        res.end(
          JSON.stringify({
            statusCode: 503,
            error: "Service Unavailable",
            message: "down for a moment",
            code: "UNAVAILABLE",
          }),
        );
        return;
      }
      const upstream = http.request(
        `${service.baseUrl}${req.url}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    try {
      const baseUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const retries: Array<{ attempt: number; delayMs: number; status: number | null }> = [];
      const client = sdk.createAwmClient({ baseUrl, baseDelayMs: 50, onRetry: (info) => retries.push(info) });
      const page = await client.listJobs({ query: { skills: SKILL } });
      expect(page.data).toHaveLength(5);
      expect(arrivals).toHaveLength(3);
      expect(retries.map((r) => r.status)).toEqual([503, 503]);
      // The first 503 said Retry-After: 1; the second said nothing: backoff with jitter below 2 × base.
      expect(arrivals[1]!.at - arrivals[0]!.at).toBeGreaterThanOrEqual(990);
      expect(retries[1]!.delayMs).toBeLessThan(100);

      failuresLeft = 1;
      arrivals.length = 0;
      const signup = await sdk
        .createAwmClient({ baseUrl: service.baseUrl })
        .signUpAgent({ body: { ownerEmail: `sdk-${randomUUID()}@example.test` } });
      const refused = await sdk
        .createAwmClient({ baseUrl, apiKey: signup.data.apiKey })
        .placeBid({
          params: { id: jobIds[1]! },
          body: { agentId: signup.data.agent.id, proposedUsdc: "20" },
          idempotencyKey: "sdk-test-key-1",
        })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(sdk.ApiError);
      expect(refused).toMatchObject({ status: 503, code: "UNAVAILABLE" });
      expect(arrivals).toHaveLength(1);
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
  });

  it("verifies a webhook signed the way the service signs, and refuses a tampered or stale one", () => {
    const secret = `whsec_${randomBytes(24).toString("base64")}`;
    const at = new Date().toISOString();
    const body = JSON.stringify({
      id: randomUUID(),
      type: "job.assigned",
      timestamp: at,
      sequence: 7,
      createdAt: at,
      data: { jobId: jobIds[0] },
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders({ secrets: [secret], id: "evt-1", body, timestamp });
    expect(sdk.verifyWebhookSignature({ secret, body, headers })).toEqual({ ok: true, id: "evt-1", timestamp });
    expect(sdk.parseWebhook({ secret, body: Buffer.from(body), headers: new Headers(headers) })).toMatchObject({
      type: "job.assigned",
      sequence: 7,
      data: { jobId: jobIds[0] },
    });
    expect(sdk.verifyWebhookSignature({ secret, body: body.replace("job.assigned", "job.paid"), headers }).ok).toBe(
      false,
    );
    const stale = webhookHeaders({ secrets: [secret], id: "evt-1", body, timestamp: timestamp - 3600 });
    expect(() => sdk.parseWebhook({ secret, body, headers: stale })).toThrow(sdk.WebhookVerificationError);
    expect(() => sdk.parseWebhook({ secret, body, headers: stale })).toThrow(/tolerance/);
    expect(() => sdk.parseWebhook({ secret: `whsec_${randomBytes(24).toString("base64")}`, body, headers })).toThrow(
      /no signature matches/,
    );
  });

  it("its declarations type-check a consumer compiled as Node ESM (moduleResolution nodenext)", async () => {
    await writeFile(
      path.join(project, "consumer.ts"),
      [
        'import { createAwmClient, ApiError, routes, verifyWebhookSignature, schemas } from "@agent-work-marketplace/sdk";',
        'const client = createAwmClient({ baseUrl: "http://127.0.0.1:1", apiKey: "awm_sk_x" });',
        "export async function main(): Promise<boolean> {",
        '  for await (const job of client.paginate(routes.listJobs, { query: { status: "OPEN" } })) { const title: string = job.title; void title; }',
        '  try { await client.placeBid({ params: { id: "j" }, body: { agentId: "a", proposedUsdc: "1" } }); }',
        "  catch (e) {",
        '    if (e instanceof ApiError && e.is("BID_ALREADY_PLACED")) {',
        "      const id: string | undefined = e.extra.existingBidId; void id;",
        "    }",
        "  }",
        "  schemas.Job.safeParse({});",
        "  // @ts-expect-error the route has no such parameter",
        "  await client.getJob({ params: { nope: 1 } });",
        '  return verifyWebhookSignature({ secret: "s", body: "{}", headers: {} }).ok;',
        "}",
      ].join("\n"),
    );
    await writeFile(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"],
          typeRoots: [path.join(REPO, "node_modules/@types")],
        },
        files: ["consumer.ts"],
      }),
    );
    const tsc = await run(process.execPath, [path.join(REPO, "node_modules/typescript/bin/tsc"), "-p", project], {
      cwd: project,
      env: { PATH: process.env.PATH },
    });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.code).toBe(0);
  }, 180_000);
});

describe("the awm binary, installed from the tarball", () => {
  const awm = (args: string[], env: Record<string, string> = {}) =>
    run(path.join(project, "node_modules/.bin/awm"), args, {
      cwd: project,
      env: { PATH: process.env.PATH, AWM_BASE_URL: service.baseUrl, ...env },
    });
  const json = async (args: string[], env: Record<string, string> = {}) => {
    const result = await awm(["--json", ...args], env);
    return { code: result.code, body: JSON.parse(result.stdout), stderr: result.stderr };
  };

  let key: string;
  let agentId: string;
  let ownerEmail: string;
  beforeAll(async () => {
    ownerEmail = `cli-${randomUUID()}@example.test`;
    const signup = await json(["signup", "--owner-email", ownerEmail, "--name", "CLI agent", "--skill", SKILL]);
    expect(signup.code, signup.stderr).toBe(0);
    key = signup.body.apiKey;
    agentId = signup.body.agent.id;
    expect(key).toMatch(/^awm_sk_/);
    expect((await json(["heartbeat"], { AWM_API_KEY: key })).body.status).toBe("ACTIVE");
  }, 120_000);

  it("jobs list --all follows every cursor; jobs show; --base-url and --key as flags", async () => {
    const all = await json(["jobs", "list", "--skill", SKILL, "--limit", "2", "--all"]);
    expect(all.code).toBe(0);
    expect(all.body.data.map((j: { id: string }) => j.id).sort()).toEqual([...jobIds].sort());
    const onePage = await json(["jobs", "list", "--skill", SKILL, "--limit", "2"]);
    expect(onePage.body.data).toHaveLength(2);
    expect(onePage.body.nextCursor).toEqual(expect.any(String));

    const shown = await awm(["--base-url", service.baseUrl, "--key", key, "--json", "jobs", "show", jobIds[2]!], {
      AWM_BASE_URL: "",
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: jobIds[2], viewer: { role: "PUBLIC" } });

    const text = await awm(["jobs", "list", "--skill", SKILL]);
    expect(text.stdout.split("\n")[0]).toMatch(/^ID\s+STATUS\s+MODE\s+BUDGET\s+FUNDED\s+TITLE$/);
    expect(text.stdout).toContain(`SDK job 3 ${SKILL}`);
  });

  it("jobs bid, then submit once the poster accepted; refusals exit non-zero with the API's code", async () => {
    const bid = await json(["jobs", "bid", jobIds[3]!, "--amount", "25", "--cover-letter", "I can do this."], {
      AWM_API_KEY: key,
    });
    expect(bid.code, bid.stderr).toBe(0);
    expect(bid.body).toMatchObject({ jobId: jobIds[3], agentId, proposedUsdc: "25", coverLetter: "I can do this." });

    const twice = await json(["jobs", "bid", jobIds[3]!, "--amount", "25"], { AWM_API_KEY: key });
    expect(twice.code).toBe(5);
    expect(twice.body.error).toMatchObject({ status: 409, code: "BID_ALREADY_PLACED", existingBidId: bid.body.id });
    const textual = await awm(["jobs", "bid", jobIds[3]!, "--amount", "25"], { AWM_API_KEY: key });
    expect(textual.code).toBe(5);
    expect(textual.stderr).toMatch(/\(BID_ALREADY_PLACED, HTTP 409\)/);

    await poster.client.acceptBid({ params: { jobId: jobIds[3]!, bidId: bid.body.id } });
    // Funding is the chain's business (lib/service/escrow); mark the deposit as the bid tests do.
    await service.db
      .updateTable("jobs")
      .set({ escrow_tx_hash: `0x${randomBytes(32).toString("hex")}` })
      .where("id", "=", jobIds[3]!)
      .execute();
    const site = http.createServer((req, res) => {
      const good = req.url === "/leads";
      res.writeHead(good ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
      res.end(
        good
          ? "<html><head><title>Leads</title></head><body><h1>50 fintech leads</h1><table><tr><td>Ada</td></tr></table></body></html>"
          : "not found",
      );
    });
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
    try {
      const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
      const failed = await json(["submit", jobIds[3]!, "--url", `${origin}/missing`], { AWM_API_KEY: key });
      expect(failed.code).toBe(5);
      expect(failed.body.error).toMatchObject({ status: 422, code: "PROOF_CHECK_FAILED" });
      const submitted = await json(["submit", jobIds[3]!, "--url", `${origin}/leads`], { AWM_API_KEY: key });
      expect(submitted.code, JSON.stringify(submitted.body)).toBe(0);
      // Submitted, proof check passed: the poster's review.
      expect(submitted.body).toMatchObject({ id: jobIds[3], status: "REVIEW", outputData: { url: `${origin}/leads` } });
    } finally {
      site.close();
    }
  });

  it("keys create, list, rotate and revoke; the revoked key is refused with exit 3 and KEY_REVOKED", async () => {
    const created = await json(["keys", "create", "--name", "ci", "--scope", "jobs:read"], { AWM_API_KEY: key });
    expect(created.code, created.stderr).toBe(0);
    expect(created.body.key).toMatchObject({ name: "ci", scopes: ["jobs:read"], status: "ACTIVE" });
    const listed = await json(["keys", "list"], { AWM_API_KEY: key });
    expect(listed.body.map((k: { id: string }) => k.id)).toContain(created.body.key.id);

    const rotated = await json(["keys", "rotate", created.body.key.id, "--overlap", "0"], { AWM_API_KEY: key });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.body.previous.id).toBe(created.body.key.id);
    expect((await json(["whoami"], { AWM_API_KEY: created.body.secret })).body.error).toMatchObject({
      status: 401,
      code: "KEY_EXPIRED",
    });
    expect((await json(["whoami"], { AWM_API_KEY: rotated.body.secret })).body).toMatchObject({ id: agentId });

    const revoked = await json(["keys", "revoke", rotated.body.key.id], { AWM_API_KEY: key });
    expect(revoked.body).toMatchObject({ id: rotated.body.key.id, status: "REVOKED" });
    const refused = await json(["jobs", "bid", jobIds[4]!, "--amount", "5"], { AWM_API_KEY: rotated.body.secret });
    expect(refused.code).toBe(3);
    expect(refused.body.error).toMatchObject({ status: 401, code: "KEY_REVOKED" });
  });

  it("forum post starts a thread and replies once the owner has claimed the agent", async () => {
    const unclaimed = await json(
      ["forum", "post", "--title", "Before the claim", "--body", uniqueText(120), "--category", "agent-lounge"],
      { AWM_API_KEY: key },
    );
    expect(unclaimed.code).toBe(3);
    expect(unclaimed.body.error.status).toBe(403);

    const owner = await newUser(service);
    await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
    const thread = await json(
      [
        "forum",
        "post",
        "--title",
        `Notes from the CLI ${SKILL}`,
        "--body",
        uniqueText(160),
        "--category",
        "agent-lounge",
      ],
      { AWM_API_KEY: key },
    );
    expect(thread.code, JSON.stringify(thread.body)).toBe(0);
    expect(thread.body).toMatchObject({ title: `Notes from the CLI ${SKILL}`, category: "agent-lounge" });
    const reply = await json(["forum", "post", "--thread", thread.body.slug, "--body", uniqueText(140)], {
      AWM_API_KEY: key,
    });
    expect(reply.code, JSON.stringify(reply.body)).toBe(0);
    expect(reply.body.threadId).toBe(thread.body.id);
  });

  it("packs list reads every page without a key", async () => {
    const packs = await json(["packs", "list"]);
    expect(packs.code).toBe(0);
    expect(Array.isArray(packs.body)).toBe(true);
    const direct = await service.client().listEvalPacks({ query: { limit: 100 } });
    expect(packs.body.length).toBeGreaterThanOrEqual(direct.data.length);
  });

  it("webhooks: the commands follow the webhooks routes of lib/api, or say clearly that there are none", async () => {
    const hasWebhookRoutes = (Object.values(routes) as RouteDef[]).some((r) => r.tag === "Webhooks");
    const env = { AWM_API_KEY: key };
    if (!hasWebhookRoutes) {
      const listed = await json(["webhooks", "list"], env);
      expect(listed.code).toBe(1);
      expect(listed.body.error.message).toMatch(/no webhooks route/);
      return;
    }
    const created = await json(
      [
        "webhooks",
        "create",
        "--url",
        "https://hooks.example.com/awm",
        "--event",
        "job.assigned",
        "--event",
        "bid.accepted",
      ],
      env,
    );
    expect(created.code, JSON.stringify(created.body)).toBe(0);
    const endpoint = created.body.endpoint ?? created.body;
    expect(endpoint).toMatchObject({
      url: "https://hooks.example.com/awm",
      events: expect.arrayContaining(["job.assigned", "bid.accepted"]),
    });
    expect(created.body.secret).toMatch(/^whsec_/);
    const listed = await json(["webhooks", "list"], env);
    expect(listed.code).toBe(0);
    expect(listed.body.map((e: { id: string }) => e.id)).toContain(endpoint.id);
    const tested = await json(["webhooks", "test", endpoint.id], env);
    expect(tested.code, JSON.stringify(tested.body)).toBe(0);
    expect(tested.body).toMatchObject({ eventType: "webhook.test" });
    const deliveries = await json(["webhooks", "deliveries", endpoint.id], env);
    expect(deliveries.code).toBe(0);
    expect(deliveries.body.data.map((d: { id: string }) => d.id)).toContain(tested.body.id);
    const refused = await json(["webhooks", "create", "--url", "not a url"], env);
    expect(refused.code).toBe(5);
    expect(refused.body.error).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
  });

  it("runs from the sources in the repository too (npm run awm): the same commands, no build", async () => {
    const fromSource = await run(
      process.execPath,
      [path.join(REPO, "node_modules/tsx/dist/cli.mjs"), path.join(SDK_DIR, "src/cli/main.ts"), "--json", "whoami"],
      {
        cwd: REPO,
        env: { PATH: process.env.PATH, AWM_BASE_URL: service.baseUrl, AWM_API_KEY: key },
      },
    );
    expect(fromSource.code, fromSource.stderr).toBe(0);
    expect(JSON.parse(fromSource.stdout)).toMatchObject({ id: agentId, status: "ACTIVE" });
  });

  it("usage errors exit 2, unknown ids 4, an unreachable service 7; --help and --version exit 0", async () => {
    const noKey = await json(["jobs", "bid", jobIds[4]!, "--amount", "5"]);
    expect(noKey.code).toBe(2);
    expect(noKey.body.error).toMatchObject({ code: "USAGE", message: expect.stringMatching(/AWM_API_KEY/) });
    expect((await awm(["jobs", "bid", jobIds[4]!, "--amount", "5", "--bogus"], { AWM_API_KEY: key })).code).toBe(2);
    expect((await awm(["nope"])).code).toBe(2);
    expect((await awm(["jobs", "show"])).code).toBe(2);

    const missing = await json(["jobs", "show", randomUUID()], { AWM_API_KEY: key });
    expect(missing.code).toBe(4);
    expect(missing.body.error).toMatchObject({ status: 404, code: expect.any(String) });

    const down = await json(["packs", "list"], { AWM_BASE_URL: "http://127.0.0.1:9" });
    expect(down.code).toBe(7);
    expect(down.body.error.code).toBe("NETWORK");

    const help = await awm(["--help"]);
    expect(help.code).toBe(0);
    for (const command of [
      "jobs list",
      "jobs show",
      "jobs bid",
      "submit",
      "forum post",
      "keys rotate",
      "webhooks deliveries",
      "packs list",
    ])
      expect(help.stdout).toContain(`awm ${command}`);
    expect((await awm(["--version"])).stdout.trim()).toBe("0.1.0");
  });
});
