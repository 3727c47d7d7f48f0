import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
  type TestUser,
} from "@/lib/service/testing/harness";
import { runCli } from "./src/cli/run";

/**
 * The agent's whole loop with `awm` alone, against the real service on loopback: the payout wallet,
 * funded work it has not bid on, a question before the bid and the poster's answer, the bid, its
 * assignment, progress, the delivery and the events feed. The CLI runs in this process (runCli, the
 * function the bin calls) so each step is fast; sdk.test.ts runs the packed binary itself.
 */
let service: TestService;
let poster: TestUser;
let agent: TestAgent;
let site: http.Server;
let origin: string;
const SKILL = `cli${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, probeAllowLoopback: true });
  poster = await newUser(service);
  agent = await newAgent(service);
  site = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      "<html><head><title>Leads</title></head><body><h1>50 fintech leads</h1><table><tr><td>Ada</td></tr></table></body></html>",
    );
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  site?.close();
  await service?.stop();
});

async function awm(args: string[], key: string | null = agent.apiKey) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(["--json", ...args], {
    env: { AWM_BASE_URL: service.baseUrl, ...(key ? { AWM_API_KEY: key } : {}) },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
  });
  return { code, body: stdout ? JSON.parse(stdout) : null, stderr };
}
async function ok(args: string[]) {
  const result = await awm(args);
  expect(result.code, `awm ${args.join(" ")}: ${JSON.stringify(result.body)} ${result.stderr}`).toBe(0);
  return result.body;
}

async function fundedJob(title: string, budget = "25") {
  const job = (
    await poster.client.createJob({ body: jobInput({ title: `${title} ${SKILL}`, requiredSkills: [SKILL], budget }) })
  ).data;
  // Funding is the chain's business (lib/service/escrow, and the discovery test funds on anvil); mark the deposit as the bid tests do.
  await service.db
    .updateTable("jobs")
    .set({ escrow_tx_hash: `0x${randomBytes(32).toString("hex")}` })
    .where("id", "=", job.id)
    .execute();
  return job;
}

describe("awm covers the agent's loop", () => {
  it("wallet show / set: none at first, then the address escrow releases pay; a wallet the escrow cannot pay is refused", async () => {
    expect(await ok(["wallet", "show"])).toEqual({ agentId: agent.id, walletAddress: null });
    const address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    expect(await ok(["wallet", "set", address])).toMatchObject({ id: agent.id, walletAddress: address });
    expect(await ok(["wallet", "show"])).toEqual({ agentId: agent.id, walletAddress: address });
    const zero = await awm(["wallet", "set", "0x0000000000000000000000000000000000000000"]);
    expect(zero.code).toBe(5);
    expect(zero.body.error).toMatchObject({ status: 400, code: "ADDRESS_NOT_PAYABLE" });
  });

  it("jobs list --funded --mode BID --exclude-bid-by me: funded work taking bids that this agent has not bid on", async () => {
    const funded = await fundedJob("Funded leads");
    const unfunded = (
      await poster.client.createJob({ body: jobInput({ title: `Unfunded leads ${SKILL}`, requiredSkills: [SKILL] }) })
    ).data;
    const bidOn = await fundedJob("Already bid");
    await service
      .client(agent.apiKey)
      .placeBid({ params: { id: bidOn.id }, body: { agentId: agent.id, proposedUsdc: "25" } });

    const ids = (body: { data: Array<{ id: string }> }) => body.data.map((j) => j.id).sort();
    expect(ids(await ok(["jobs", "list", "--skill", SKILL, "--all"]))).toEqual(
      [funded.id, unfunded.id, bidOn.id].sort(),
    );
    expect(ids(await ok(["jobs", "list", "--skill", SKILL, "--funded", "--all"]))).toEqual(
      [funded.id, bidOn.id].sort(),
    );
    expect(ids(await ok(["jobs", "list", "--skill", SKILL, "--unfunded"]))).toEqual([unfunded.id]);
    expect(
      ids(await ok(["jobs", "list", "--skill", SKILL, "--funded", "--mode", "BID", "--exclude-bid-by", "me"])),
    ).toEqual([funded.id]);
    expect(ids(await ok(["jobs", "list", "--skill", SKILL, "--exclude-bid-by", agent.id, "--mode", "BOUNTY"]))).toEqual(
      [],
    );
    const both = await awm(["jobs", "list", "--funded", "--unfunded"]);
    expect(both.code).toBe(2);
    const badMode = await awm(["jobs", "list", "--mode", "AUCTION"]);
    expect(badMode.code).toBe(5);
    expect(badMode.body.error).toMatchObject({
      status: 400,
      code: "VALIDATION_FAILED",
      message: expect.stringMatching(/participationMode/),
    });
  });

  it("asks before bidding, reads the answer, bids, sees it in bids list; once accepted: jobs mine, progress, submit, and the events feed", async () => {
    const job = await fundedJob("Collect 50 fintech leads", "30");
    // A question on an OPEN job before any bid opens the conversation.
    const question = await ok(["messages", "send", job.id, "--text", "CSV or a web page?"]);
    expect(question).toMatchObject({
      jobId: job.id,
      agentId: agent.id,
      senderSide: "AGENT",
      body: "CSV or a web page?",
    });
    const answer = await service.http("POST", `/v1/jobs/${job.id}/messages`, {
      token: poster.token,
      body: { with: agent.id, body: "A web page with a table." },
    });
    expect(answer.status).toBe(201);
    const thread = await ok(["messages", "list", job.id]);
    expect(thread.data.map((m: { senderSide: string; body: string }) => [m.senderSide, m.body])).toEqual([
      ["AGENT", "CSV or a web page?"],
      ["POSTER", "A web page with a table."],
    ]);

    // On a funded job a bid is exactly the budget.
    const off = await awm(["jobs", "bid", job.id, "--amount", "29"]);
    expect(off.code).toBe(5);
    expect(off.body.error).toMatchObject({ status: 409, code: "BID_AMOUNT_MISMATCH" });
    const bid = await ok(["jobs", "bid", job.id, "--amount", "30", "--cover-letter", "A table page it is."]);
    expect((await ok(["bids", "list", "--status", "PENDING"])).data).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: bid.id, jobId: job.id, funded: true })]),
    );

    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
    expect((await ok(["jobs", "mine", "--status", "IN_PROGRESS"])).data).toEqual([
      expect.objectContaining({ id: job.id, status: "IN_PROGRESS", funded: true }),
    ]);
    const progress = await ok(["jobs", "progress", job.id, "--progress", "0.5", "--note", "Half of the leads are in."]);
    expect(progress).toMatchObject({
      id: job.id,
      progress: 0.5,
      progressNote: "Half of the leads are in.",
      lastHeartbeatAt: expect.any(String),
    });
    const noNumber = await awm(["jobs", "progress", job.id, "--progress", "half"]);
    expect(noNumber.code).toBe(2);
    const tooFar = await awm(["jobs", "progress", job.id, "--progress", "1.5"]);
    expect(tooFar.code).toBe(5);
    expect(tooFar.body.error).toMatchObject({
      code: "VALIDATION_FAILED",
      messages: [expect.stringMatching(/between 0 and 1/)],
    });

    const submitted = await ok(["submit", job.id, "--url", `${origin}/leads`]);
    expect(submitted).toMatchObject({ id: job.id, status: "REVIEW" });
    expect((await ok(["jobs", "mine", "--status", "REVIEW"])).data.map((j: { id: string }) => j.id)).toEqual([job.id]);

    // The events feed, oldest first; the cursor it prints continues from there.
    const feed = await ok(["events", "--all", "--limit", "2"]);
    const mine = feed.data
      .filter((e: { data: { jobId?: string } }) => e.data.jobId === job.id)
      .map((e: { type: string }) => e.type);
    expect(mine).toEqual(expect.arrayContaining(["message.created", "bid.accepted"]));
    expect(feed.nextCursor).toEqual(expect.any(String));
    const after = await ok(["events", "--cursor", feed.nextCursor]);
    expect(after).toEqual({ data: [], nextCursor: feed.nextCursor });
  });

  it("parts list / submit: a job paid in parts shows its plan, and one part is delivered on its own", async () => {
    const job = (
      await poster.client.createJob({
        body: jobInput({
          title: `Leads in two batches ${SKILL}`,
          requiredSkills: [SKILL],
          budget: "30",
          milestones: [
            { title: "First 20 leads", amountUsdc: "10", acceptanceCriteria: "A table page with 20 leads." },
            { title: "The other 30", amountUsdc: "20", acceptanceCriteria: "The rest of the table." },
          ],
        }),
      })
    ).data;
    await service.db
      .updateTable("jobs")
      .set({ escrow_tx_hash: `0x${randomBytes(32).toString("hex")}` })
      .where("id", "=", job.id)
      .execute();
    const bid = await ok(["jobs", "bid", job.id, "--amount", "30"]);
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });

    const plan = await ok(["parts", "list", job.id]);
    expect(
      plan.data.map((p: { position: number; amountUsdc: string; status: string }) => [
        p.position,
        p.amountUsdc,
        p.status,
      ]),
    ).toEqual([
      [1, "10", "OPEN"],
      [2, "20", "OPEN"],
    ]);
    const noUrl = await awm(["parts", "submit", job.id, "1"]);
    expect(noUrl.code).toBe(2);
    const part = await ok(["parts", "submit", job.id, "1", "--url", `${origin}/leads`]);
    expect(part).toMatchObject({ jobId: job.id, position: 1, status: "SUBMITTED", deliverableUrl: `${origin}/leads` });
    expect((await ok(["parts", "list", job.id])).data.map((p: { status: string }) => p.status)).toEqual([
      "SUBMITTED",
      "OPEN",
    ]);
    // Another agent's key cannot deliver this agent's part.
    const stranger = await newAgent(service);
    const refused = await awm(["parts", "submit", job.id, "2", "--url", `${origin}/leads`], stranger.apiKey);
    expect(refused.code).not.toBe(0);
    expect(refused.body.error.status).toBe(403);
  });

  it("help lists the loop's commands; they need a key", async () => {
    let out = "";
    expect(await runCli(["--help"], { env: {}, stdout: (t) => void (out += t), stderr: () => undefined })).toBe(0);
    for (const command of [
      "wallet set",
      "wallet show",
      "jobs mine",
      "jobs progress",
      "messages send",
      "messages list",
      "bids list",
      "parts list",
      "parts submit",
      "events",
    ]) {
      expect(out).toContain(`awm ${command}`);
    }
    const noKey = await awm(["jobs", "mine"], null);
    expect(noKey.code).toBe(2);
    expect(noKey.body.error.message).toMatch(/AWM_API_KEY/);
  });
});
