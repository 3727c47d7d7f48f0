import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Address } from "viem";
import { routes } from "@/lib/api/routes";
import { adminRoutes } from "@/lib/api/routes/admin";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { refundEscrow } from "@/lib/chain/escrow/settle";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { uniqueText } from "@/lib/testing/unique-text";
import { sql } from "kysely";
import { recordSettlement, settleJob } from "../escrow/settle-job";
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
import { claimedAgent, rewardOf, uniqueTitle } from "../testing/rewards-support";

const operatorKey = generatePrivateKey();
const operatorAddress = privateKeyToAccount(operatorKey).address;

let chain: TestChain;
let service: TestService;
let operator: TestUser;
const PAYER = 1;
const REASON = { reason: "spam across the forum and the board" };

beforeAll(async () => {
  // A chain id of its own: the reconciliation reads the jobs of the configured chain, and suites
  // sharing this worker's database keep theirs on other chains, so its totals are this file's alone.
  chain = await startTestChain({ chainId: 31_771 });
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    chain: chain.config,
    operatorAddresses: [operatorAddress.toLowerCase()],
    rewardsAdminAddresses: [operatorAddress.toLowerCase()],
  });
  operator = await newUser(service, operatorKey);
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;
const admin = (method: string, path: string, body?: unknown, token = operator.token) =>
  service.http(method, path, { token, body });

async function fundedJob(poster: TestUser, options: { mode?: "BID" | "BOUNTY" } = {}) {
  const job = (
    await poster.client.createJob({
      body: jobInput({
        budget: "40",
        ...(options.mode === "BOUNTY" ? { participationMode: "BOUNTY", claimWindowMinutes: 60 } : {}),
        inputData: { budgetType: "bid", proofHoldHours: 0 },
      }),
    })
  ).data;
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[PAYER]!.privateKey,
    escrowJobId: hexOf(job.escrowJobId),
    amount: parseUsdc("40"),
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  return job;
}

async function assign(poster: TestUser, agent: TestAgent, jobId: string) {
  const bid = (await agent.client.placeBid({ params: { id: jobId }, body: { agentId: agent.id, proposedUsdc: "40" } }))
    .data;
  await poster.client.acceptBid({ params: { jobId, bidId: bid.id } });
}

/** A request every admin route accepts the shape of, so only the operator rule can refuse it. */
function sampleRequest(name: keyof typeof adminRoutes): { path: string; body?: unknown } {
  const route = adminRoutes[name];
  const path = route.path.replace(
    ":id",
    name.endsWith("Agent") ? "agt_unknown" : "00000000-0000-4000-8000-000000000000",
  );
  if (route.method === "GET") return { path };
  if (name === "moderateForumPost")
    return {
      path,
      body: { kind: "THREAD", id: "00000000-0000-4000-8000-000000000000", action: "HIDE", reason: "abusive" },
    };
  if (name === "addCampaignBudget") return { path, body: { slots: 1, ...REASON } };
  if (name === "reportForumPost")
    return { path, body: { kind: "THREAD", id: "00000000-0000-4000-8000-000000000000", reason: "abusive" } };
  return { path, body: REASON };
}

describe("/v1/admin/*: the operator only", () => {
  it("every admin route answers 403 NOT_OPERATOR to a person who is not the operator, and to the key of an agent the operator owns", async () => {
    const someone = await newUser(service);
    const operatorsAgent = await claimedAgent(service, operator);
    const names = (Object.keys(adminRoutes) as Array<keyof typeof adminRoutes>).filter((n) =>
      adminRoutes[n].path.startsWith("/v1/admin/"),
    );
    expect(names.length).toBeGreaterThanOrEqual(11);
    for (const name of names) {
      const { path, body } = sampleRequest(name);
      for (const token of [someone.token, operatorsAgent.apiKey]) {
        const res = await service.http(adminRoutes[name].method, path, { token, body });
        expect([name, res.status, res.json?.code]).toEqual([name, 403, "NOT_OPERATOR"]);
      }
      expect((await service.http(adminRoutes[name].method, path, { body })).status).toBe(401);
    }
    // The operator's own session passes the gate (and meets the route's own rules).
    expect((await admin("GET", "/v1/admin/overview")).status).toBe(200);
    expect((await admin("POST", "/v1/admin/agents/agt_unknown/suspend", REASON)).status).toBe(404);
    // An action without a reason is refused before anything happens.
    expect((await admin("POST", "/v1/admin/agents/agt_unknown/suspend", {})).status).toBe(400);
  });
});

describe("suspending an agent", () => {
  it("refuses its bid, claim, submission and forum post with AGENT_SUSPENDED, withdraws its pending bids and disputes its assigned jobs; restore lifts it", async () => {
    const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
    const owner = await newUser(service);
    const agent = await claimedAgent(service, owner);
    await service.db
      .updateTable("agents")
      .set({ wallet_address: chain.accounts[6]!.address })
      .where("id", "=", agent.id)
      .execute();
    const pendingJob = (await poster.client.createJob({ body: jobInput() })).data;
    const pendingBid = (
      await agent.client.placeBid({ params: { id: pendingJob.id }, body: { agentId: agent.id, proposedUsdc: "40" } })
    ).data;
    const assigned = await fundedJob(poster);
    await assign(poster, agent, assigned.id);

    const res = await admin("POST", `/v1/admin/agents/${agent.id}/suspend`, REASON);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({
      withdrawnBidIds: [pendingBid.id],
      disputedJobIds: [assigned.id],
      person: { kind: "AGENT", id: agent.id, suspension: { reason: REASON.reason } },
    });

    // The reason is on the agent's record, for everyone who reads it.
    const read = await service.http("GET", `/v1/agents/${agent.id}`);
    expect(read.json.data.suspension).toMatchObject({ reason: REASON.reason });
    // Its pending bid shows WITHDRAWN; the assigned job went to dispute with the operator's reason.
    const bids = await poster.client.listJobBids({ params: { jobId: pendingJob.id } });
    expect(bids.data.find((b) => b.id === pendingBid.id)?.status).toBe("WITHDRAWN");
    const disputed = await poster.client.getJob({ params: { id: assigned.id } });
    expect(disputed.data).toMatchObject({
      status: "DISPUTED",
      disputeReason: `agent suspended by the operator: ${REASON.reason}`,
    });

    const refused = (r: { status: number; json: any }) => [r.status, r.json?.code, r.json?.reason];
    const another = (await poster.client.createJob({ body: jobInput() })).data;
    expect(
      refused(
        await service.http("POST", `/v1/jobs/${another.id}/bids`, {
          token: agent.apiKey,
          body: { agentId: agent.id, proposedUsdc: "40" },
        }),
      ),
    ).toEqual([403, "AGENT_SUSPENDED", REASON.reason]);
    // Its owner's session cannot act for it either.
    expect(
      refused(
        await service.http("POST", `/v1/jobs/${another.id}/bids`, {
          token: owner.token,
          body: { agentId: agent.id, proposedUsdc: "40" },
        }),
      ),
    ).toEqual([403, "AGENT_SUSPENDED", REASON.reason]);
    const bounty = (
      await poster.client.createJob({ body: jobInput({ participationMode: "BOUNTY", claimWindowMinutes: 60 }) })
    ).data;
    expect(
      refused(
        await service.http("POST", `/v1/jobs/${bounty.id}/claim`, { token: agent.apiKey, body: { agentId: agent.id } }),
      ),
    ).toEqual([403, "AGENT_SUSPENDED", REASON.reason]);
    expect(
      refused(
        await service.http("POST", `/v1/jobs/${assigned.id}/submit`, {
          token: agent.apiKey,
          body: { outputData: { url: "https://example.com/work" } },
        }),
      ),
    ).toEqual([403, "AGENT_SUSPENDED", REASON.reason]);
    expect(
      refused(
        await service.http("POST", "/v1/forum/threads", {
          token: agent.apiKey,
          body: { title: uniqueTitle(), body: uniqueText(300), category: "agent-economics" },
        }),
      ),
    ).toEqual([403, "AGENT_SUSPENDED", REASON.reason]);
    const thread = (
      await owner.client.createThread({
        body: { title: uniqueTitle(), body: uniqueText(300), category: "agent-economics" },
      })
    ).data;
    expect(
      refused(
        await service.http("POST", `/v1/forum/threads/${thread.id}/replies`, {
          token: agent.apiKey,
          body: { body: uniqueText(250) },
        }),
      ),
    ).toEqual([403, "AGENT_SUSPENDED", REASON.reason]);

    // A second suspension is refused; the event and the audit line are there once.
    expect((await admin("POST", `/v1/admin/agents/${agent.id}/suspend`, REASON)).json.code).toBe("INVALID_STATE");
    const events = await service.db
      .selectFrom("domain_events")
      .select(["type", "recipient_ids"])
      .where("type", "=", "agent.suspended")
      .where(sql<boolean>`recipient_ids @> array[${agent.id}]::text[]`)
      .execute();
    expect(events).toHaveLength(1);
    const audit = await admin("GET", `/v1/admin/audit?subjectType=agent&subjectId=${agent.id}`);
    expect(audit.json.data).toMatchObject([
      {
        action: "agent.suspend",
        subjectType: "agent",
        subjectId: agent.id,
        reason: REASON.reason,
        operatorAddress: operatorAddress.toLowerCase(),
      },
    ]);

    const restored = await admin("POST", `/v1/admin/agents/${agent.id}/restore`, { reason: "appeal accepted" });
    expect(restored.status).toBe(200);
    expect(restored.json.data.person.suspension).toBeNull();
    expect((await service.http("GET", `/v1/agents/${agent.id}`)).json.data.suspension).toBeNull();
    expect(
      (
        await service.http("POST", `/v1/jobs/${another.id}/bids`, {
          token: agent.apiKey,
          body: { agentId: agent.id, proposedUsdc: "40" },
        })
      ).status,
    ).toBe(201);
    expect(
      await service.db
        .selectFrom("domain_events")
        .select("id")
        .where("type", "=", "agent.restored")
        .where(sql<boolean>`recipient_ids @> array[${agent.id}]::text[]`)
        .execute(),
    ).toHaveLength(1);
  });

  it("a suspended person cannot post jobs or forum posts (USER_SUSPENDED); the operator cannot suspend themself", async () => {
    const person = await newUser(service);
    expect((await admin("POST", `/v1/admin/users/${person.id}/suspend`, REASON)).status).toBe(200);
    const job = await service.http("POST", "/v1/jobs", { token: person.token, body: jobInput() });
    expect([job.status, job.json.code]).toEqual([403, "USER_SUSPENDED"]);
    const thread = await service.http("POST", "/v1/forum/threads", {
      token: person.token,
      body: { title: uniqueTitle(), body: uniqueText(300), category: "agent-economics" },
    });
    expect([thread.status, thread.json.code]).toEqual([403, "USER_SUSPENDED"]);
    const search = await admin("GET", `/v1/admin/people?kind=USER&suspended=true&q=${person.address.toLowerCase()}`);
    expect(search.json.data).toMatchObject([{ kind: "USER", id: person.id, suspension: { reason: REASON.reason } }]);
    expect((await admin("POST", `/v1/admin/users/${person.id}/restore`, { reason: "appeal accepted" })).status).toBe(
      200,
    );
    expect((await service.http("POST", "/v1/jobs", { token: person.token, body: jobInput() })).status).toBe(201);
    expect((await admin("POST", `/v1/admin/users/${operator.id}/suspend`, REASON)).json.code).toBe("INVALID_STATE");
  });

  it("people search finds an agent by name, id and owner email", async () => {
    const ownerEmail = `needle-${Date.now()}@example.test`;
    const agent = await newAgent(service, { name: `Needle ${Date.now()}`, ownerEmail });
    for (const q of [agent.id, ownerEmail.toUpperCase(), "needle"]) {
      const res = await admin("GET", `/v1/admin/people?kind=AGENT&q=${encodeURIComponent(q)}`);
      expect(res.json.data.map((p: { id: string }) => p.id)).toContain(agent.id);
    }
  });
});

describe("forum moderation", () => {
  it("any reader reports a post once; hiding it removes it from the thread, the search and the reward queue, and the audit log shows it", async () => {
    const owner = await newUser(service);
    const author = await claimedAgent(service, owner);
    const word = `zanzibarquill${Date.now()}`;
    const thread = (
      await author.client.createThread({
        body: { title: `${uniqueTitle()} ${word}`, body: `${uniqueText(450)} ${word}`, category: "agent-economics" },
      })
    ).data;
    const reader = await newUser(service);
    const replier = await claimedAgent(service, await newUser(service));
    const reply = (
      await replier.client.createReply({ params: { slugOrId: thread.id }, body: { body: uniqueText(250) } })
    ).data;

    const report = await service.http("POST", "/v1/forum/reports", {
      token: reader.token,
      body: { kind: "THREAD", id: thread.id, reason: "copied from elsewhere" },
    });
    expect(report.status, JSON.stringify(report.json)).toBe(201);
    expect(
      (
        await service.http("POST", "/v1/forum/reports", {
          token: reader.token,
          body: { kind: "THREAD", id: thread.id, reason: "again" },
        })
      ).json.code,
    ).toBe("ALREADY_REPORTED");
    // An agent is a reader too.
    expect(
      (
        await service.http("POST", "/v1/forum/reports", {
          token: replier.apiKey,
          body: { kind: "THREAD", id: thread.id, reason: "off topic" },
        })
      ).status,
    ).toBe(201);
    const queue = await admin("GET", "/v1/admin/forum/reports?limit=100");
    expect(queue.json.data.find((r: { id: string }) => r.id === report.json.data.id)).toMatchObject({
      kind: "THREAD",
      targetId: thread.id,
      reportCount: 2,
      postStatus: "VISIBLE",
    });

    // Before: in the thread, the search and the reward queue.
    expect(
      (await service.http("GET", `/v1/forum/threads?q=${word}`)).json.data.map((t: { id: string }) => t.id),
    ).toEqual([thread.id]);
    const before = await rewardOf(service, thread.id, "THREAD", () => true);
    expect(["PENDING_REVIEW", "WAITING_FOR_BUDGET"]).toContain(before.status);

    // Hide the reply: gone from its thread, the thread's count goes down.
    const hideReply = await admin("POST", "/v1/admin/forum/moderation", {
      kind: "REPLY",
      id: reply.id,
      action: "HIDE",
      reason: "abusive reply",
    });
    expect(hideReply.status, JSON.stringify(hideReply.json)).toBe(200);
    const detail = await service.http("GET", `/v1/forum/threads/${thread.id}`);
    expect(detail.json.data.replies.map((r: { id: string }) => r.id)).not.toContain(reply.id);
    expect(detail.json.data.replyCount).toBe(0);
    expect((await service.http("GET", `/v1/forum/replies/${reply.id}`)).status).toBe(404);

    const hide = await admin("POST", "/v1/admin/forum/moderation", {
      kind: "THREAD",
      id: thread.id,
      action: "HIDE",
      reason: "copied text",
    });
    expect(hide.json.data).toMatchObject({ status: "HIDDEN", hiddenReason: "copied text" });
    expect((await service.http("GET", `/v1/forum/threads/${thread.id}`)).status).toBe(404);
    expect((await service.http("GET", `/v1/forum/threads?q=${word}`)).json.data).toEqual([]);
    const after = await rewardOf(service, thread.id, "THREAD", (s) => s === "DECLINED");
    expect(after.declined_reason).toMatch(/no longer visible/);
    // Its reports are resolved; the audit log shows both hides.
    expect(
      (await admin("GET", "/v1/admin/forum/reports?status=RESOLVED&limit=100")).json.data.find(
        (r: { id: string }) => r.id === report.json.data.id,
      ),
    ).toMatchObject({ resolution: "HIDDEN" });
    const audit = await admin("GET", `/v1/admin/audit?subjectType=forum_thread&subjectId=${thread.id}`);
    expect(audit.json.data).toMatchObject([{ action: "post.hide", reason: "copied text" }]);
    expect(
      (await admin("GET", `/v1/admin/audit?subjectType=forum_reply&subjectId=${reply.id}`)).json.data,
    ).toMatchObject([{ action: "post.hide", reason: "abusive reply" }]);
    // Reporting a hidden post: it is not there.
    expect(
      (
        await service.http("POST", "/v1/forum/reports", {
          token: (await newUser(service)).token,
          body: { kind: "THREAD", id: thread.id, reason: "x y z" },
        })
      ).status,
    ).toBe(404);

    // Restore brings it back; a second restore is refused.
    expect(
      (
        await admin("POST", "/v1/admin/forum/moderation", {
          kind: "THREAD",
          id: thread.id,
          action: "RESTORE",
          reason: "appeal",
        })
      ).json.data.status,
    ).toBe("VISIBLE");
    expect((await service.http("GET", `/v1/forum/threads/${thread.id}`)).status).toBe(200);
    expect(
      (
        await admin("POST", "/v1/admin/forum/moderation", {
          kind: "THREAD",
          id: thread.id,
          action: "RESTORE",
          reason: "appeal",
        })
      ).json.code,
    ).toBe("INVALID_STATE");
  });

  it("lock stops replies, pin marks the thread; a report can be dismissed", async () => {
    const author = await newUser(service);
    const thread = (
      await author.client.createThread({
        body: { title: uniqueTitle(), body: uniqueText(300), category: "agent-economics" },
      })
    ).data;
    expect(
      (
        await admin("POST", "/v1/admin/forum/moderation", {
          kind: "THREAD",
          id: thread.id,
          action: "LOCK",
          reason: "flame war",
        })
      ).json.data.locked,
    ).toBe(true);
    const reply = await service.http("POST", `/v1/forum/threads/${thread.id}/replies`, {
      token: (await newUser(service)).token,
      body: { body: uniqueText(250) },
    });
    expect(reply.json.code).toBe("THREAD_LOCKED");
    expect(
      (
        await admin("POST", "/v1/admin/forum/moderation", {
          kind: "THREAD",
          id: thread.id,
          action: "PIN",
          reason: "announcement",
        })
      ).json.data.pinned,
    ).toBe(true);
    expect((await service.http("GET", `/v1/forum/threads/${thread.id}`)).json.data).toMatchObject({
      locked: true,
      pinned: true,
    });
    const report = await service.http("POST", "/v1/forum/reports", {
      token: (await newUser(service)).token,
      body: { kind: "THREAD", id: thread.id, reason: "I dislike it" },
    });
    const dismissed = await admin("POST", `/v1/admin/forum/reports/${report.json.data.id}/dismiss`, {
      reason: "not a rule breach",
    });
    expect(dismissed.json.data).toMatchObject({ resolution: "DISMISSED" });
    expect(
      (await admin("POST", `/v1/admin/forum/reports/${report.json.data.id}/dismiss`, { reason: "again" })).json.code,
    ).toBe("INVALID_STATE");
  });
});

describe("the escrow reconciliation and settlements", () => {
  it("lists no difference for jobs of normal flows, and names a job whose slot the chain no longer holds or whose amount differs", async () => {
    const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
    const held = await fundedJob(poster);
    const released = await fundedJob(poster);
    const agent = await newAgent(service, { walletAddress: chain.accounts[6]!.address });
    await assign(poster, agent, released.id);
    // The release path approval takes (the escrow domain's settleJob): recorded, sent, confirmed.
    expect((await settleJob(service.ctx, released.id, "RELEASE", chain.accounts[6]!.address as Address)).status).toBe(
      "CONFIRMED",
    );

    // A stranger's 1-unit deposit under the held job's public id: explained (listed apart), not a difference.
    await depositToEscrow({
      config: chain.config,
      privateKey: chain.accounts[5]!.privateKey,
      escrowJobId: hexOf(held.escrowJobId),
      amount: 1n,
    });
    const clean = await admin("GET", "/v1/admin/reconciliation");
    expect(clean.status, JSON.stringify(clean.json)).toBe(200);
    // Every money flow of this file so far (funding, releases, disputes, a retried settlement, reward slots) reconciles.
    expect(clean.json.data.differences).toEqual([]);
    expect(clean.json.data.heldOnChainUsdc).toBe(clean.json.data.heldInDatabaseUsdc);
    expect(clean.json.data.strayDeposits).toEqual([
      { escrowJobId: hexOf(held.escrowJobId), payer: chain.accounts[5]!.address, amountUsdc: "0.000001" },
    ]);
    const mine = (r: typeof clean, ids: string[]) =>
      r.json.data.differences.filter((d: { jobId: string | null }) => d.jobId && ids.includes(d.jobId));
    expect(mine(clean, [held.id, released.id])).toEqual([]);
    expect(clean.json.data).toMatchObject({ chainConfigured: true, escrowAddress: chain.config.escrowAddress });

    // Behind the database's back: one slot refunded on chain, another job's budget changed.
    const refunded = await fundedJob(poster);
    await refundEscrow({
      config: chain.config,
      escrowJobId: hexOf(refunded.escrowJobId),
      payer: chain.accounts[PAYER]!.address as Address,
    });
    await service.db.updateTable("jobs").set({ budget_usdc: "41" }).where("id", "=", held.id).execute();
    const dirty = await admin("GET", "/v1/admin/reconciliation");
    expect(mine(dirty, [held.id, refunded.id, released.id])).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "AMOUNT_MISMATCH", jobId: held.id, databaseUsdc: "41", chainUsdc: "40" }),
        expect.objectContaining({ kind: "SLOT_NOT_FUNDED", jobId: refunded.id, databaseUsdc: "40", chainUsdc: "0" }),
      ]),
    );
    expect(mine(dirty, [held.id, refunded.id, released.id])).toHaveLength(2);
    await service.db.updateTable("jobs").set({ budget_usdc: "40" }).where("id", "=", held.id).execute();
  });

  it("lists a failed settlement in the overview; its retry is refused with the reason; a PENDING one is sent now, once, with the audit line", async () => {
    const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
    const job = await fundedJob(poster);
    const agent = await newAgent(service, { walletAddress: chain.accounts[7]!.address });
    await assign(poster, agent, job.id);
    // A release recorded and given up on (as after a revert judged final).
    const settlement = await service.db
      .transaction()
      .execute((trx) => recordSettlement(trx as never, job.id, "RELEASE", chain.accounts[7]!.address as Address));
    await service.db
      .updateTable("escrow_settlements")
      .set({ status: "FAILED", last_error: "simulated revert" })
      .where("id", "=", settlement.id)
      .execute();

    const overview = await admin("GET", "/v1/admin/overview");
    expect(overview.json.data.settlements.find((s: { id: string }) => s.id === settlement.id)).toMatchObject({
      status: "FAILED",
      lastError: "simulated revert",
      jobId: job.id,
    });
    expect(overview.json.data.health).toMatchObject({ database: { ok: true }, chain: { ok: true } });
    expect(overview.json.data.jobsByStatus.map((s: { status: string }) => s.status)).toEqual([
      "OPEN",
      "IN_PROGRESS",
      "REVIEW",
      "DISPUTED",
      "COMPLETED",
      "CANCELLED",
    ]);

    // Sending a FAILED settlement again unchanged would change nothing: refused with its reason.
    const refused = await admin("POST", `/v1/admin/settlements/${settlement.id}/retry`, { reason: "try it again" });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: "SETTLEMENT_FAILED", lastError: "simulated revert" });

    // A PENDING one waiting out its backoff after an outage is sent now.
    await service.db
      .updateTable("escrow_settlements")
      .set({ status: "PENDING", last_error: "simulated outage", lease_until: new Date(Date.now() + 600_000) })
      .where("id", "=", settlement.id)
      .execute();
    const retried = await admin("POST", `/v1/admin/settlements/${settlement.id}/retry`, { reason: "the RPC is back" });
    expect(retried.status, JSON.stringify(retried.json)).toBe(200);
    expect(retried.json.data).toMatchObject({ status: "CONFIRMED" });
    const again = await admin("POST", `/v1/admin/settlements/${settlement.id}/retry`, { reason: "the RPC is back" });
    expect([again.status, again.json.code]).toEqual([409, "INVALID_STATE"]);
    const audit = await admin("GET", `/v1/admin/audit?subjectType=settlement&subjectId=${settlement.id}`);
    expect(audit.json.data).toMatchObject([
      { action: "settlement.retry", reason: "the RPC is back", details: { previousStatus: "PENDING" } },
    ]);
  });
  it("a FAILED refund can be acted on: its retry asks the chain again and refunds the payer once", async () => {
    const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
    const job = await fundedJob(poster);
    // A refund marked FAILED although nothing stops it now (as after a node's error was taken for a revert).
    const settlement = await service.db
      .transaction()
      .execute((trx) => recordSettlement(trx as never, job.id, "REFUND", null));
    await service.db
      .updateTable("escrow_settlements")
      .set({ status: "FAILED", last_error: "reverted: upstream connect error", failed_at: new Date() })
      .where("id", "=", settlement.id)
      .execute();
    const payer = chain.accounts[PAYER]!.address as Address;
    const before = await erc20BalanceOf({ config: chain.config, address: payer });

    const retried = await admin("POST", `/v1/admin/settlements/${settlement.id}/retry`, { reason: "the node took it" });
    expect(retried.status, JSON.stringify(retried.json)).toBe(200);
    expect(retried.json.data).toMatchObject({ status: "CONFIRMED", kind: "REFUND" });
    expect((await erc20BalanceOf({ config: chain.config, address: payer })) - before).toBe(parseUsdc("40"));
    const again = await admin("POST", `/v1/admin/settlements/${settlement.id}/retry`, { reason: "twice" });
    expect([again.status, again.json.code]).toEqual([409, "INVALID_STATE"]);
    expect((await erc20BalanceOf({ config: chain.config, address: payer })) - before).toBe(parseUsdc("40"));
  });
});

describe("escrow fees", () => {
  it("releases accrue the fee in the contract; the operator withdraws it to the fee recipient exactly once", async () => {
    const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
    const job = await fundedJob(poster);
    const agent = await newAgent(service, { walletAddress: chain.accounts[6]!.address });
    await assign(poster, agent, job.id);
    expect((await settleJob(service.ctx, job.id, "RELEASE", chain.accounts[6]!.address as Address)).status).toBe(
      "CONFIRMED",
    );

    const fees = await admin("GET", "/v1/admin/fees");
    expect(fees.status, JSON.stringify(fees.json)).toBe(200);
    expect(Number(fees.json.data.accruedUsdc)).toBeGreaterThanOrEqual(2); // 5% of 40 at least
    expect(Number(fees.json.data.earnedUsdc)).toBeGreaterThanOrEqual(Number(fees.json.data.accruedUsdc));
    const recipient = fees.json.data.feeRecipient as Address;
    const before = await erc20BalanceOf({ config: chain.config, address: recipient });

    const [first, second] = await Promise.all([
      admin("POST", "/v1/admin/fees/withdraw", { reason: "monthly sweep" }),
      admin("POST", "/v1/admin/fees/withdraw", { reason: "monthly sweep" }),
    ]);
    const done = [first, second].filter((r) => r.status === 200);
    const refused = [first, second].filter((r) => r.status !== 200);
    expect(done).toHaveLength(1);
    expect(refused.map((r) => r.json.code)).toEqual(["NO_FEES_ACCRUED"]);
    expect(done[0]!.json.data).toMatchObject({ amountUsdc: fees.json.data.accruedUsdc, to: recipient });
    expect((await erc20BalanceOf({ config: chain.config, address: recipient })) - before).toBe(
      parseUsdc(fees.json.data.accruedUsdc),
    );
    expect((await admin("GET", "/v1/admin/fees")).json.data.accruedUsdc).toBe("0");
    expect((await admin("POST", "/v1/admin/fees/withdraw", { reason: "again" })).json.code).toBe("NO_FEES_ACCRUED");
    const audit = await admin("GET", "/v1/admin/audit?subjectType=escrow");
    expect(audit.json.data.filter((e: { action: string }) => e.action === "fees.withdraw")).toHaveLength(1);
  });
});

describe("reward campaigns", () => {
  it("the operator adds budget (funded at once) and pauses a campaign: a paused campaign pays no reward until resumed", async () => {
    const created = (await operator.client.createRewardCampaign({ body: { kind: "REPLY", slots: 1 } })).data;
    expect(created).toMatchObject({ slots: 1, availableSlots: 1, pausedAt: null });
    const added = await admin("POST", `/v1/admin/campaigns/${created.id}/budget`, {
      slots: 2,
      reason: "more replies wanted",
    });
    expect(added.status, JSON.stringify(added.json)).toBe(200);
    expect(added.json.data).toMatchObject({ slots: 3, availableSlots: 3, unfundedSlots: 0 });

    const paused = await admin("POST", `/v1/admin/campaigns/${created.id}/pause`, { reason: "budget review" });
    expect(paused.json.data.pausedAt).not.toBeNull();
    expect(
      (await admin("POST", `/v1/admin/campaigns/${created.id}/pause`, { reason: "budget review" })).json.code,
    ).toBe("INVALID_STATE");

    // A reply that earns a REPLY reward waits while the only REPLY campaign is paused…
    const thread = (
      await (
        await newUser(service)
      ).client.createThread({ body: { title: uniqueTitle(), body: uniqueText(300), category: "agent-economics" } })
    ).data;
    const author = await claimedAgent(service, await newUser(service));
    const reply = (
      await author.client.createReply({ params: { slugOrId: thread.id }, body: { body: uniqueText(250) } })
    ).data;
    const waiting = await rewardOf(service, reply.id, "REPLY", (s) => s !== "PENDING_REVIEW");
    expect(waiting.status).toBe("WAITING_FOR_BUDGET");
    // …and is paid from it once resumed.
    expect(
      (await admin("POST", `/v1/admin/campaigns/${created.id}/resume`, { reason: "review done" })).json.data.pausedAt,
    ).toBeNull();
    const paid = await rewardOf(service, reply.id, "REPLY", (s) => s === "PAID");
    expect(paid.campaign_id).toBe(created.id);
    const audit = await admin("GET", `/v1/admin/audit?subjectType=reward_campaign&subjectId=${created.id}`);
    expect(audit.json.data.map((e: { action: string }) => e.action)).toEqual([
      "campaign.resume",
      "campaign.pause",
      "campaign.add_budget",
    ]);
  });
});

describe("GET /v1/admin/audit", () => {
  it("pages newest first by keyset cursor", async () => {
    for (let i = 0; i < 3; i++) {
      const a = await newAgent(service);
      await admin("POST", `/v1/admin/agents/${a.id}/suspend`, { reason: `page test ${i}` });
    }
    const first = await admin("GET", "/v1/admin/audit?limit=2");
    expect(first.json.data).toHaveLength(2);
    expect(first.json.meta.hasMore).toBe(true);
    const second = await admin("GET", `/v1/admin/audit?limit=2&cursor=${first.json.meta.nextCursor}`);
    const ids = [...first.json.data, ...second.json.data].map((e: { id: string }) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const times = [...first.json.data, ...second.json.data].map((e: { createdAt: string }) => Date.parse(e.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(first.json.data[0]).toMatchObject({ action: "agent.suspend", reason: "page test 2" });
    expect(routes.listAuditLog.path).toBe("/v1/admin/audit");
  });
});
