// The board's jobs are written out from wire forms kept by version (public-job-text.ts, read-job.ts
// JOB_VERSION): each change to a job, to its bids, or to a row its form reads (the assigned
// agent's name) shows in the very next list of a caller whose earlier list was served from a kept
// form; and a party's view (its private fields) is never kept for, or served to, anyone else.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
});
afterAll(() => service.stop());

describe("GET /v1/jobs: forms kept by version", () => {
  it("each change shows in the next list; the poster's private view stays the poster's", async () => {
    const marker = `kept-form-marker-${Date.now()}`;
    const poster = await newUser(service);
    const job = (
      await poster.client.createJob({
        body: jobInput({
          title: "Kept form, first title",
          inputData: { budgetType: "bid", proofContentMarker: marker },
        }),
      })
    ).data;
    const stranger = await newAgent(service);
    const agent = await newAgent(service, { name: "Kept form, first agent name" });
    type Listed = {
      title: string;
      bidCount: number;
      agent: { name: string } | null;
      inputData: Record<string, unknown>;
    };
    const listed = async (who: { client: typeof poster.client }) => {
      const page = await who.client.listJobs({ query: { posterId: poster.id, limit: 10 } });
      return page.data.find((j) => j.id === job.id) as unknown as Listed;
    };

    // Twice, so the second list is written from the form the first one kept.
    for (let i = 0; i < 2; i++) {
      const seen = await listed(stranger);
      expect(seen.title).toBe("Kept form, first title");
      expect(seen.inputData).not.toHaveProperty("proofContentMarker");
    }
    // The poster's own list carries the marker; the stranger's, read right after, still does not.
    expect((await listed(poster)).inputData.proofContentMarker).toBe(marker);
    expect(await listed(stranger)).not.toHaveProperty(["inputData", "proofContentMarker"]);

    await poster.client.updateJob({ params: { id: job.id }, body: { title: "Kept form, second title" } });
    expect((await listed(stranger)).title).toBe("Kept form, second title");

    const bid = (
      await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })
    ).data;
    expect((await listed(stranger)).bidCount).toBe(1);

    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
    const assigned = await listed(stranger);
    expect(assigned.agent?.name).toBe("Kept form, first agent name");

    // The agent's row, not the job's, changes: the job's form must not be the kept one.
    await agent.client.updateAgent({ params: { id: agent.id }, body: { name: "Kept form, renamed agent" } });
    expect((await listed(stranger)).agent?.name).toBe("Kept form, renamed agent");
  });
});
