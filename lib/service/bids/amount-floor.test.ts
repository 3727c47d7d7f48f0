// Every amount that is paid has a floor of 1 USDC, refused with a clear 400 when it is set: a budget,
// a bid, a part of a plan (the job's or a bid's own), and a part scaled to a bid's price, which is
// refused when the bid is placed rather than when it is accepted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
});
afterAll(() => service.stop());

const part = (title: string, amountUsdc: string) => ({ title, amountUsdc, acceptanceCriteria: `The ${title}` });

describe("the 1 USDC floor", () => {
  it("a budget, a bid and a part below 1 USDC are 400 and store nothing; 1 USDC is accepted", async () => {
    const poster = await newUser(service);
    for (const budget of ["0", "0.5", "0.999999"]) {
      const res = await service.http("POST", "/v1/jobs", { token: poster.token, body: jobInput({ budget }) });
      expect(res.status, budget).toBe(400);
      expect(res.json.message).toContain("must be at least 1 USDC");
    }
    const lowPart = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: jobInput({ budget: "10", milestones: [part("draft", "9.5"), part("edit", "0.5")] }),
    });
    expect(lowPart.status).toBe(400);
    expect(lowPart.json.message).toContain("milestones.1.amountUsdc");

    const job = (await poster.client.createJob({ body: jobInput({ budget: "10" }) })).data;
    const agent = await newAgent(service);
    const bid = (proposedUsdc: string, extra: Record<string, unknown> = {}) =>
      service.http("POST", `/v1/jobs/${job.id}/bids`, {
        token: agent.apiKey,
        body: { agentId: agent.id, proposedUsdc, ...extra },
      });
    for (const proposedUsdc of ["0", "0.000001", "0.99"]) {
      const res = await bid(proposedUsdc);
      expect(res.status, proposedUsdc).toBe(400);
      expect(res.json.message).toContain("proposedUsdc must be at least 1 USDC");
    }
    const ownLowPart = await bid("10", { milestones: [part("draft", "9.5"), part("edit", "0.5")] });
    expect(ownLowPart.status).toBe(400);
    expect(await service.db.selectFrom("bids").select("id").where("job_id", "=", job.id).execute()).toEqual([]);

    const placed = await bid("1");
    expect(placed.status, JSON.stringify(placed.json)).toBe(201);
    const accepted = await service.http("POST", `/v1/jobs/${job.id}/bids/${placed.json.data.id}/accept`, {
      token: poster.token,
    });
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(200);
    expect(accepted.json.data.job.budgetUsdc).toBe("1");
  });

  it("a bid whose price would scale a part of the job's plan below 1 USDC is 400 when placed, naming the part", async () => {
    const poster = await newUser(service);
    const job = (
      await poster.client.createJob({
        body: jobInput({ budget: "10", milestones: [part("research", "9"), part("summary", "1")] }),
      })
    ).data;
    const agent = await newAgent(service);
    const scaled = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
      token: agent.apiKey,
      body: { agentId: agent.id, proposedUsdc: "5" },
    });
    expect(scaled.status).toBe(400);
    expect(scaled.json.code).toBe("VALIDATION_FAILED");
    expect(scaled.json.message).toContain("would scale part 2 of the job's plan to 0.5 USDC");
    // With a plan of its own, every part at least 1 USDC, the same price is a bid.
    const own = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
      token: agent.apiKey,
      body: { agentId: agent.id, proposedUsdc: "5", milestones: [part("research", "4"), part("summary", "1")] },
    });
    expect(own.status, JSON.stringify(own.json)).toBe(201);
    // A price that keeps every part at 1 USDC or more is a bid, and accepting it scales the plan.
    const other = await newAgent(service);
    const fine = await other.client.placeBid({
      params: { id: job.id },
      body: { agentId: other.id, proposedUsdc: "20" },
    });
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: fine.data.id } });
    const parts = (await service.http("GET", `/v1/jobs/${job.id}/milestones`, { token: poster.token })).json.data;
    expect(parts.map((p: { amountUsdc: string }) => p.amountUsdc)).toEqual(["18", "2"]);
  });
});
