import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import {
  claimLinkFor,
  GENEROUS_BUDGETS,
  jobInput,
  mailTextFor,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { fanOutNotifications } from "../notifications/fan-out";
import { escalateDueDisputes } from "./escalate-disputes";

// Everyone who must act on a case is told: the evaluator the poster named (inbox and mail) and
// the operators (who rule if the evaluator does not), and the evaluator finds their cases in one list.

const HOUR = 3600_000;
const operatorKey = generatePrivateKey();
let service: TestService;
let operator: TestUser;
beforeAll(async () => {
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    operatorAddresses: [privateKeyToAccount(operatorKey).address],
  });
  operator = await newUser(service, operatorKey);
});
afterAll(() => service.stop());

let counter = 0;
const emailOf = (tag: string) => `${tag}-${process.pid}-${Date.now()}-${(counter += 1)}@example.test`;

async function drain() {
  while ((await fanOutNotifications(service.ctx)) > 0) {
    /* next batch */
  }
}

/** A person with a verified email (they claimed an agent from the link mailed to that address). */
async function personWithEmail(tag: string): Promise<TestUser & { email: string }> {
  const user = await newUser(service);
  const email = emailOf(tag);
  await newAgent(service, { ownerEmail: email });
  await user.client.claimAgent({ params: { token: await claimLinkFor(service, email) } });
  return { ...user, email };
}

/** A job naming `evaluatorAddress`, a bid accepted, then disputed by the poster (IN_PROGRESS). */
async function disputedJob(evaluatorAddress: string, title: string) {
  const poster = await newUser(service);
  const job = (await poster.client.createJob({ body: jobInput({ title, evaluatorAddress }) })).data;
  const agent = await newAgent(service);
  const bid = (await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "30" } }))
    .data;
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
  const disputed = await service.http("POST", `/v1/jobs/${job.id}/dispute`, {
    token: poster.token,
    body: { reason: "Nothing was delivered as agreed." },
  });
  expect(disputed.status, JSON.stringify(disputed.json)).toBe(200);
  return { poster, agent, job };
}

const myCases = (token: string, query = "") => service.http("GET", `/v1/me/cases${query}`, { token });

describe("a case tells the people who must act", () => {
  it("the named evaluator gets an inbox notification and a mail linking the case; the operators are told too; the parties are not told twice", async () => {
    const evaluator = await personWithEmail("evaluator");
    const { poster, job } = await disputedJob(evaluator.address, `Translate a lease ${counter}`);
    await drain();

    const inbox = (await evaluator.client.listNotifications({})).data.filter((n) => n.jobId === job.id);
    expect(inbox).toHaveLength(1);
    expect(inbox[0]).toMatchObject({ kind: "dispute", type: "job.disputed", link: `/jobs/${job.id}` });
    expect(inbox[0]!.text).toContain("dispute");
    const mail = await mailTextFor(service, evaluator.email);
    expect(mail).toContain(`/jobs/${job.id}`);
    expect(mail).toContain(job.title);

    // The operator rules if the evaluator does not: told at once, not only at escalation.
    const operatorInbox = (await operator.client.listNotifications({})).data.filter((n) => n.jobId === job.id);
    expect(operatorInbox.map((n) => n.type)).toEqual(["job.disputed"]);
    // The poster opened it: not told of their own act.
    expect(
      (await poster.client.listNotifications({})).data.filter((n) => n.jobId === job.id && n.kind === "dispute"),
    ).toEqual([]);
  });

  it("an evaluator who has never signed in finds the case in their inbox at their first sign-in, and in their cases", async () => {
    const key = generatePrivateKey();
    const address = privateKeyToAccount(key).address;
    // Named by a poster who typed the address in lower case: the sign-in still finds the same person.
    const { job } = await disputedJob(address.toLowerCase(), `Review a contract ${counter}`);
    await drain();

    const evaluator = await newUser(service, key);
    const inbox = (await evaluator.client.listNotifications({})).data.filter((n) => n.jobId === job.id);
    expect(inbox).toHaveLength(1);
    expect(inbox[0]).toMatchObject({ kind: "dispute", type: "job.disputed", link: `/jobs/${job.id}` });
    expect((await evaluator.client.getUnreadNotificationCount({})).data.unreadCount).toBe(1);
    expect((await myCases(evaluator.token)).json.data.map((c: { jobId: string }) => c.jobId)).toEqual([job.id]);
    // The account made for them is the one they sign in to: one person per address.
    const rows = await service.db.selectFrom("users").select("id").where("address", "=", address).execute();
    expect(rows.map((r) => r.id)).toEqual([evaluator.id]);
  });

  it("GET /v1/me/cases lists the evaluator's cases with their state, and nobody else's; an agent key's list is empty", async () => {
    const evaluator = await newUser(service);
    const first = await disputedJob(evaluator.address, `Check 40 invoices ${counter}`);
    const second = await disputedJob(evaluator.address, `Label 200 photos ${counter}`);
    const other = await disputedJob((await newUser(service)).address, `Someone else's case ${counter}`);

    const listed = await myCases(evaluator.token);
    expect(listed.status).toBe(200);
    const ids = listed.json.data.map((c: { jobId: string }) => c.jobId);
    expect(ids).toEqual([second.job.id, first.job.id]);
    expect(listed.json.data[0]).toMatchObject({
      jobTitle: second.job.title,
      status: "OPEN",
      arbiter: "EVALUATOR",
      evaluatorAddress: evaluator.address.toLowerCase(),
    });
    expect(ids).not.toContain(other.job.id);

    // The poster of a case is not its evaluator: their own list does not show it.
    expect((await myCases(first.poster.token)).json.data).toEqual([]);
    const byAgent = await myCases(first.agent.apiKey);
    expect(byAgent.status).toBe(200);
    expect(byAgent.json.data).toEqual([]);

    // Nobody ruled in time: the case escalates, and the list says so (and filters by status).
    await service.db
      .updateTable("dispute_cases")
      .set({ ruling_deadline_at: new Date(Date.now() - HOUR) })
      .where("job_id", "=", first.job.id)
      .execute();
    await escalateDueDisputes(service.ctx, { only: [first.job.id] });
    const after = (await myCases(evaluator.token)).json.data;
    expect(after.find((c: { jobId: string }) => c.jobId === first.job.id)).toMatchObject({
      status: "ESCALATED",
      arbiter: "OPERATOR",
    });
    expect((await myCases(evaluator.token, "?status=OPEN")).json.data.map((c: { jobId: string }) => c.jobId)).toEqual([
      second.job.id,
    ]);

    // Pages by cursor.
    const page1 = (await myCases(evaluator.token, "?limit=1")).json;
    expect(page1.data).toHaveLength(1);
    expect(page1.meta.hasMore).toBe(true);
    const page2 = (await myCases(evaluator.token, `?limit=1&cursor=${encodeURIComponent(page1.meta.nextCursor)}`)).json;
    expect(page2.data.map((c: { jobId: string }) => c.jobId)).toEqual([first.job.id]);
    expect((await myCases(evaluator.token, "?status=DONE")).status).toBe(400);
  });
});
