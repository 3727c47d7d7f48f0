import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobDetail } from "@/lib/api/schemas/viewer";
import {
  claimLinkFor,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  GENEROUS_BUDGETS,
  type TestAgent,
  type TestService,
  type TestUser,
} from "../testing/harness";

// Delivered work is private (job-viewer.ts): every read path that writes a job out, for each kind
// of caller. The delivery itself (a probe, a chain) is the deliverables suite's business; here the
// delivered state is written into the job row, so the test is about who reads it.

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
});
afterAll(() => service.stop());

const uniq = () => `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

interface Cast {
  jobId: string;
  secrets: { url: string; marker: string; reason: string; proofReason: string; hash: string; held: string };
  poster: TestUser;
  assigned: TestAgent;
  owner: TestUser;
  bidder: TestAgent;
  bidderBidId: string;
  stranger: TestAgent;
  strangerUser: TestUser;
}

/** A shareable BID job, assigned to an agent whose owner has claimed it, with a second bidder; then delivered and disputed. */
async function deliveredJob(): Promise<Cast> {
  const id = uniq();
  const secrets = {
    url: `https://deliverables.example.test/${id}/leads.csv`,
    marker: `marker-${id}`,
    reason: `dispute-reason-${id}`,
    proofReason: `proof-reason-${id}`,
    hash: `ab${id.replace(/[^0-9a-f]/g, "")}`.padEnd(64, "c").slice(0, 64),
    held: `held-${id}`,
  };
  const poster = await newUser(service);
  const job = (
    await poster.client.createJob({
      body: jobInput({
        isPubliclyShareable: true,
        inputData: { budgetType: "bid", proofContentMarker: secrets.marker },
      }),
    })
  ).data;
  const ownerEmail = `privacy-owner-${id}@example.test`;
  const assigned = await newAgent(service, { ownerEmail });
  const owner = await newUser(service);
  await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
  const bidder = await newAgent(service);
  const win = (
    await assigned.client.placeBid({ params: { id: job.id }, body: { agentId: assigned.id, proposedUsdc: "40" } })
  ).data;
  const lose = (
    await bidder.client.placeBid({ params: { id: job.id }, body: { agentId: bidder.id, proposedUsdc: "39" } })
  ).data;
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: win.id } });
  await service.db
    .updateTable("jobs")
    .set({
      status: "DISPUTED",
      output_data: JSON.stringify({ url: secrets.url }),
      proof_hash: secrets.hash,
      submitted_at: new Date(),
      proof_checked_at: new Date(),
      proof_check_status: "LIVE",
      proof_check_reason: secrets.proofReason,
      release_held_reason: secrets.held,
      disputed_at: new Date(),
      dispute_reason: secrets.reason,
    })
    .where("id", "=", job.id)
    .execute();
  return {
    jobId: job.id,
    secrets,
    poster,
    assigned,
    owner,
    bidder,
    bidderBidId: lose.id,
    stranger: await newAgent(service),
    strangerUser: await newUser(service),
  };
}

/** The job object in an answer, from a detail ({data: job}) or a list ({data: [jobs]}). */
function jobIn(json: any, jobId: string): any {
  const data = json?.data;
  const job = Array.isArray(data) ? data.find((j: any) => j.id === jobId) : data;
  expect(job, `job ${jobId} in ${JSON.stringify(json).slice(0, 300)}`).toBeTruthy();
  return job;
}

function expectPrivate(job: any, cast: Cast, label: string) {
  expect(job.outputData, label).toBeNull();
  expect(job.inputData.proofContentMarker, label).toBeUndefined();
  expect(job.disputeReason ?? null, label).toBeNull();
  expect(job.proofHash, label).toBeNull();
  expect(job.releaseHeldReason ?? null, label).toBeNull();
  expect(job.proofCheckedAt, label).toBeUndefined();
  expect(job.proofCheckStatus, label).toBeUndefined();
  expect(job.proofCheckReason, label).toBeUndefined();
  // Nothing of the delivered work anywhere in the object.
  const text = JSON.stringify(job);
  for (const secret of Object.values(cast.secrets)) expect(text, label).not.toContain(secret);
}

function expectVisible(job: any, cast: Cast, label: string, { proofFields }: { proofFields: boolean }) {
  expect(job.outputData, label).toEqual({ url: cast.secrets.url });
  expect(job.inputData.proofContentMarker, label).toBe(cast.secrets.marker);
  expect(job.disputeReason, label).toBe(cast.secrets.reason);
  expect(job.proofHash, label).toBe(cast.secrets.hash);
  expect(job.releaseHeldReason, label).toBe(cast.secrets.held);
  if (proofFields) {
    expect(job.proofCheckStatus, label).toBe("LIVE");
    expect(job.proofCheckReason, label).toBe(cast.secrets.proofReason);
    expect(job.proofCheckedAt, label).toEqual(expect.any(String));
  }
}

describe("delivered work is private to the poster and the assigned agent (and their owners)", () => {
  let cast: Cast;
  beforeAll(async () => {
    cast = await deliveredJob();
  });

  const outsiders = () => [
    { label: "anonymous", token: undefined },
    { label: "a stranger agent", token: cast.stranger.apiKey },
    { label: "a stranger human", token: cast.strangerUser.token },
    { label: "a losing bidder", token: cast.bidder.apiKey },
  ];
  const parties = () => [
    { label: "the poster", token: cast.poster.token },
    { label: "the assigned agent", token: cast.assigned.apiKey },
    { label: "the assigned agent's owner", token: cast.owner.token },
  ];

  it("GET /v1/jobs (the board) hides it from everyone, anonymous or not, but the parties", async () => {
    const path = `/v1/jobs?posterId=${cast.poster.id}`;
    for (const { label, token } of outsiders()) {
      const res = await service.http("GET", path, { token });
      expect(res.status, label).toBe(200);
      expectPrivate(jobIn(res.json, cast.jobId), cast, `board, ${label}`);
    }
    for (const { label, token } of parties()) {
      expectVisible(jobIn((await service.http("GET", path, { token })).json, cast.jobId), cast, `board, ${label}`, {
        proofFields: false,
      });
    }
  });

  it("GET /v1/jobs/:id/public hides it from every caller, the parties included (they read GET /v1/jobs/:id)", async () => {
    for (const { label, token } of [...outsiders(), ...parties()]) {
      const res = await service.http("GET", `/v1/jobs/${cast.jobId}/public`, { token });
      expect(res.status, label).toBe(200);
      expectPrivate(jobIn(res.json, cast.jobId), cast, `public, ${label}`);
    }
  });

  it("GET /v1/jobs/:id shows it, with the proof-check fields, to the parties only", async () => {
    for (const { label, token } of outsiders().filter((o) => o.token)) {
      const res = await service.http("GET", `/v1/jobs/${cast.jobId}`, { token });
      expect(res.status, label).toBe(200);
      expectPrivate(jobIn(res.json, cast.jobId), cast, `detail, ${label}`);
    }
    for (const { label, token } of parties()) {
      const res = await service.http("GET", `/v1/jobs/${cast.jobId}`, { token });
      expect(res.status, label).toBe(200);
      expectVisible(jobIn(res.json, cast.jobId), cast, `detail, ${label}`, { proofFields: true });
    }
  });

  it("GET /v1/agents/:id/jobs shows it to the assigned agent and its owner; nobody else reads that list", async () => {
    const path = `/v1/agents/${cast.assigned.id}/jobs`;
    for (const { label, token } of [
      { label: "the assigned agent", token: cast.assigned.apiKey },
      { label: "its owner", token: cast.owner.token },
    ]) {
      expectVisible(
        jobIn((await service.http("GET", path, { token })).json, cast.jobId),
        cast,
        `agent jobs, ${label}`,
        { proofFields: true },
      );
    }
    for (const { label, token } of [
      ...outsiders().filter((o) => o.token),
      { label: "the poster", token: cast.poster.token },
    ]) {
      expect((await service.http("GET", path, { token })).status, label).toBe(403);
    }
  });

  it("the share card, the bid inbox and the subcontracting tree never carry it", async () => {
    const card = await service.http("GET", `/v1/jobs/${cast.jobId}/share-card`);
    expect(card.status).toBe(200);
    const inbox = await service.http("GET", `/v1/agents/${cast.bidder.id}/bids`, { token: cast.bidder.apiKey });
    expect(inbox.status).toBe(200);
    expect(inbox.json.data.some((b: any) => b.jobId === cast.jobId)).toBe(true);
    const tree = await service.http("GET", `/v1/jobs/${cast.jobId}/children`, { token: cast.assigned.apiKey });
    expect(tree.status).toBe(200);
    for (const answer of [card, inbox, tree]) {
      for (const secret of Object.values(cast.secrets)) expect(JSON.stringify(answer.json)).not.toContain(secret);
    }
  });

  it("a job posted by an agent: the agent and its owner are the poster's side", async () => {
    const id = uniq();
    const ownerEmail = `privacy-poster-owner-${id}@example.test`;
    const posterAgent = await newAgent(service, { ownerEmail });
    const posterOwner = await newUser(service);
    await posterOwner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
    const marker = `agent-posted-${id}`;
    const job = (
      await posterAgent.client.createJob({
        body: jobInput({ inputData: { budgetType: "bid", proofContentMarker: marker } }),
      })
    ).data;
    const read = async (token?: string) =>
      jobIn((await service.http("GET", `/v1/jobs?posterId=${job.posterId}`, { token })).json, job.id);
    expect((await read(posterAgent.apiKey)).inputData.proofContentMarker).toBe(marker);
    expect((await read(posterOwner.token)).inputData.proofContentMarker).toBe(marker);
    expect((await read(cast.stranger.apiKey)).inputData.proofContentMarker).toBeUndefined();
    expect((await read()).inputData.proofContentMarker).toBeUndefined();
    const detail = await service.http("GET", `/v1/jobs/${job.id}`, { token: posterOwner.token });
    expect(detail.json.data.viewer.role).toBe("OWNER_OF_POSTER");
  });
});

describe("viewer: the caller's role and what it may do", () => {
  const viewerOf = async (jobId: string, token: string) => {
    const res = await service.http("GET", `/v1/jobs/${jobId}`, { token });
    expect(res.status).toBe(200);
    return JobDetail.parse(res.json.data).viewer!;
  };

  it("on an OPEN bid job: the poster decides bids, cancels and funds; a bidder withdraws; a stranger agent bids", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const bidder = await newAgent(service);
    const bid = (
      await bidder.client.placeBid({ params: { id: job.id }, body: { agentId: bidder.id, proposedUsdc: "40" } })
    ).data;
    const stranger = await newAgent(service);

    const asPoster = await viewerOf(job.id, poster.token);
    expect(asPoster.role).toBe("POSTER");
    expect(asPoster.can).toMatchObject({
      readBids: true,
      decideBids: true,
      cancel: true,
      fund: true,
      bid: false,
      submit: false,
      approve: false,
      review: false,
    });

    const asBidder = await viewerOf(job.id, bidder.apiKey);
    expect(asBidder.role).toBe("BIDDER");
    expect(asBidder.bids).toEqual([{ id: bid.id, agentId: bidder.id, status: "PENDING" }]);
    expect(asBidder.can).toMatchObject({ bid: false, withdrawBid: true, readBids: false, cancel: false });

    const asStranger = await viewerOf(job.id, stranger.apiKey);
    expect(asStranger.role).toBe("PUBLIC");
    expect(asStranger.can).toMatchObject({ bid: true, withdrawBid: false, readBids: false, review: false });
  });

  it("on an assigned job: the agent's side submits (once funded) and disputes, the poster disputes, the others nothing", async () => {
    const cast = await deliveredJob();
    await service.db
      .updateTable("jobs")
      .set({ status: "IN_PROGRESS", dispute_reason: null })
      .where("id", "=", cast.jobId)
      .execute();
    for (const [token, role] of [
      [cast.assigned.apiKey, "ASSIGNED_AGENT"],
      [cast.owner.token, "OWNER_OF_ASSIGNED_AGENT"],
    ] as const) {
      const v = await viewerOf(cast.jobId, token);
      expect(v.role).toBe(role);
      expect(v.can).toMatchObject({
        submit: false,
        review: true,
        dispute: true,
        approve: false,
        cancel: false,
        viewTree: true,
      });
    }
    const asPoster = await viewerOf(cast.jobId, cast.poster.token);
    expect(asPoster.can).toMatchObject({
      review: true,
      dispute: true,
      decideBids: false,
      cancel: false,
      submit: false,
    });
    const asBidder = await viewerOf(cast.jobId, cast.bidder.apiKey);
    expect(asBidder.role).toBe("BIDDER");
    expect(asBidder.can).toMatchObject({ review: false, dispute: false, withdrawBid: false });
    await service.db
      .updateTable("jobs")
      .set({ escrow_tx_hash: `0x${cast.jobId.replace(/-/g, "").padEnd(64, "0")}` })
      .where("id", "=", cast.jobId)
      .execute();
    expect((await viewerOf(cast.jobId, cast.assigned.apiKey)).can.submit).toBe(true);
  });

  it("GET /v1/agents/:id says SELF, OWNER or PUBLIC", async () => {
    const ownerEmail = `viewer-owner-${uniq()}@example.test`;
    const agent = await newAgent(service, { ownerEmail });
    const owner = await newUser(service);
    await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
    const other = await newAgent(service);
    const read = async (token?: string) =>
      (await service.http("GET", `/v1/agents/${agent.id}`, { token })).json.data.viewer;
    expect(await read(agent.apiKey)).toEqual({ role: "SELF", can: { manage: true, readBids: true, readJobs: true } });
    expect(await read(owner.token)).toEqual({ role: "OWNER", can: { manage: true, readBids: true, readJobs: true } });
    expect(await read(other.apiKey)).toEqual({
      role: "PUBLIC",
      can: { manage: false, readBids: false, readJobs: false },
    });
    expect(await read()).toEqual({ role: "PUBLIC", can: { manage: false, readBids: false, readJobs: false } });
  });
});
