// The plain bid (place-bid.ts, placePlainBid): an agent's own key bidding on an OPEN BID job is
// placed in one statement, which inserts only where the general path (placeBidByRules) would. Each
// case below is a bid an agent's key sends, so each first meets that statement: it must place
// nothing, and the general path must answer the rule's refusal (or, for a forum reward slot, its
// EXPIRED bid). A condition missing from the statement turns its case into a PENDING bid.
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claimLinkFor,
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
} from "../testing/harness";
import { expectError } from "../testing/expect-error";
import { StatementNames } from "../db/prepared-statements";
import { PLAIN_BID } from "./place-bid";
import type { ErrorCode } from "@/lib/api/schemas/errors";

// Its point is to be planned once per connection: a text the database layer would not name (a ";"
// in a comment did that) is parsed and planned on every bid, three times the statement's own cost.
it("the plain bid runs as a named prepared statement", () => {
  const names = new StatementNames();
  names.nameFor(PLAIN_BID);
  expect(names.nameFor(PLAIN_BID)).toMatch(/^awm_\d+$/);
});

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
});
afterAll(() => service.stop());

const bid = (jobId: string, agent: TestAgent, body: Record<string, unknown> = {}) =>
  service.http("POST", `/v1/jobs/${jobId}/bids`, {
    token: agent.apiKey,
    body: { agentId: agent.id, proposedUsdc: "40", ...body },
  });
const pendingBids = (jobId: string) =>
  service.db.selectFrom("bids").select("id").where("job_id", "=", jobId).where("status", "=", "PENDING").execute();
const notices = (jobId: string) =>
  service.db
    .selectFrom("domain_events")
    .select(["type", "recipient_ids", "actor_id", "data"])
    .where("job_id", "=", jobId)
    .where("type", "=", "bid.created")
    .execute();
const setJob = async (jobId: string, values: Record<string, unknown>): Promise<void> => {
  await service.db.updateTable("jobs").set(values).where("id", "=", jobId).execute();
};
const part = (title: string, amountUsdc: string) => ({ title, amountUsdc, acceptanceCriteria: `The ${title}` });
const HOUR = 3_600_000;

async function openJob(overrides: Record<string, unknown> = {}) {
  const poster = await newUser(service);
  const job = (await poster.client.createJob({ body: jobInput({ budget: "40", ...overrides }) })).data;
  return { poster, job };
}

describe("the plain bid: one statement", () => {
  it("places the bid and the poster's bid.created notice together, as the general path writes them", async () => {
    const { poster, job } = await openJob();
    const agent = await newAgent(service);
    const res = await bid(job.id, agent, { proposedUsdc: "40.5", coverLetter: "Done in a day" });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.data).toMatchObject({
      jobId: job.id,
      agentId: agent.id,
      proposedUsdc: "40.5",
      coverLetter: "Done in a day",
      status: "PENDING",
    });
    expect(await notices(job.id)).toEqual([
      {
        type: "bid.created",
        recipient_ids: [poster.id],
        actor_id: agent.id,
        data: {
          bidId: res.json.data.id,
          jobId: job.id,
          agentId: agent.id,
          agentName: expect.any(String),
          proposedUsdc: "40.500000",
        },
      },
    ]);

    // The owner's session bids through the general path: its notice has the same shape.
    const ownerEmail = `plain-${process.pid}-${Date.now()}@example.test`;
    const owned = await newAgent(service, { ownerEmail });
    const owner = await newUser(service);
    await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
    const other = await openJob();
    const viaOwner = await service.http("POST", `/v1/jobs/${other.job.id}/bids`, {
      token: owner.token,
      body: { agentId: owned.id, proposedUsdc: "40.5", coverLetter: "Done in a day" },
    });
    expect(viaOwner.status, JSON.stringify(viaOwner.json)).toBe(201);
    const [general] = await notices(other.job.id);
    const [plain] = await notices(job.id);
    expect(Object.keys(general!.data).sort()).toEqual(Object.keys(plain!.data).sort());
    expect(general!.data).toMatchObject({ proposedUsdc: "40.500000", agentId: owned.id, bidId: viaOwner.json.data.id });
  });

  it("a job posted by an agent: the notice goes to that agent", async () => {
    const posterAgent = await newAgent(service);
    const job = (await posterAgent.client.createJob({ body: jobInput({ budget: "40" }) })).data;
    const agent = await newAgent(service);
    expect((await bid(job.id, agent)).status).toBe(201);
    expect((await notices(job.id)).map((n) => n.recipient_ids)).toEqual([[posterAgent.id]]);
  });
});

describe("every bid the general path refuses, the statement places nothing", () => {
  type Case = [
    string,
    (job: { id: string }, agent: TestAgent) => Promise<{ job?: { id: string }; agent?: TestAgent } | void>,
    number,
    ErrorCode | null,
    Record<string, unknown>?,
  ];
  const cases: Case[] = [
    [
      "a suspended agent: 403 AGENT_SUSPENDED",
      async (_job, agent) => {
        const row = await service.db
          .selectFrom("agents")
          .select("principal_id")
          .where("id", "=", agent.id)
          .executeTakeFirstOrThrow();
        await service.db
          .updateTable("principals")
          .set({ suspended_at: new Date(), suspension_reason: "test" })
          .where("id", "=", row.principal_id)
          .execute();
      },
      403,
      "AGENT_SUSPENDED",
    ],
    [
      "an agent before its first heartbeat: 409 AGENT_NOT_ACTIVE",
      async () => ({ agent: await newAgent(service, { active: false }) }),
      409,
      "AGENT_NOT_ACTIVE",
    ],
    [
      "a deadline just passed: 409 DEADLINE_PASSED",
      (job) => setJob(job.id, { deadline_at: new Date(Date.now() - 1000) }),
      409,
      "DEADLINE_PASSED",
    ],
    ["a cancelled job: 409 JOB_NOT_OPEN", (job) => setJob(job.id, { status: "CANCELLED" }), 409, "JOB_NOT_OPEN"],
    [
      "the agent's own job: 409 OWN_JOB",
      async (_job, agent) => ({ job: (await agent.client.createJob({ body: jobInput({ budget: "40" }) })).data }),
      409,
      "OWN_JOB",
    ],
    [
      "a BOUNTY: 409 JOB_NOT_BIDDABLE",
      (job) => setJob(job.id, { participation_mode: "BOUNTY" }),
      409,
      "JOB_NOT_BIDDABLE",
    ],
    [
      "a job that requires a certification pack the agent lacks: 403 PACK_REQUIRED",
      (job) => setJob(job.id, { required_pack_id: `pack-${randomUUID()}` }),
      403,
      "PACK_REQUIRED",
    ],
    [
      "a funded job at another price: 409 BID_AMOUNT_MISMATCH",
      (job) => setJob(job.id, { escrow_tx_hash: `0x${randomBytes(32).toString("hex")}` }),
      409,
      "BID_AMOUNT_MISMATCH",
      { proposedUsdc: "39" },
    ],
    [
      "an EscrowV2 deposit that expires before the job needs it: 409 ESCROW_EXPIRY_TOO_SHORT",
      (job) =>
        setJob(job.id, {
          escrow_tx_hash: `0x${randomBytes(32).toString("hex")}`,
          escrow_version: 2,
          funded_at: new Date(),
          escrow_expires_at: new Date(Date.now() + 24 * HOUR),
          escrow_expiry_needed_at: new Date(Date.now() + 60 * 24 * HOUR),
        }),
      409,
      "ESCROW_EXPIRY_TOO_SHORT",
    ],
    [
      "a price that would scale a part of the job's plan below 1 USDC: 400",
      async () => ({
        job: (await openJob({ budget: "10", milestones: [part("research", "9"), part("summary", "1")] })).job,
      }),
      400,
      null,
      { proposedUsdc: "5" },
    ],
    ["someone else's agent: 403 FORBIDDEN", async () => ({}), 403, "FORBIDDEN", { agentId: "someone-else" }],
  ];

  it.each(cases)("%s", async (_what, arrange, status, code, body = {}) => {
    const opened = await openJob();
    const agent = await newAgent(service);
    const arranged = (await arrange(opened.job, agent)) ?? {};
    const job = arranged.job ?? opened.job;
    const bidder = arranged.agent ?? agent;
    const agentId = typeof body.agentId === "string" ? (await newAgent(service)).id : bidder.id;
    const res = await bid(job.id, bidder, { ...body, agentId });
    if (code) expectError(res, status, code);
    else expect(res.status, JSON.stringify(res.json)).toBe(status);
    expect(await pendingBids(job.id)).toEqual([]);
    expect(await notices(job.id)).toEqual([]);
  });

  it("a second bid of the agent: 409 BID_ALREADY_PLACED naming the first, and one notice only", async () => {
    const { job } = await openJob();
    const agent = await newAgent(service);
    const first = await bid(job.id, agent);
    expect(first.status).toBe(201);
    expectError(await bid(job.id, agent), 409, "BID_ALREADY_PLACED");
    const again = await bid(job.id, agent);
    expect(again.json.existingBidId).toBe(first.json.data.id);
    expect(await notices(job.id)).toHaveLength(1);
  });

  it("a forum reward slot takes no bid: recorded EXPIRED by the general path, never PENDING", async () => {
    const { job } = await openJob();
    await setJob(job.id, { participation_mode: "AUTOMATIC_FORUM_REWARD" });
    const agent = await newAgent(service);
    const res = await bid(job.id, agent);
    expect(res.json.data?.status ?? res.json.code).not.toBe("PENDING");
    expect(await pendingBids(job.id)).toEqual([]);
  });
});
