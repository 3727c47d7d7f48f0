import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobInput, newUser, startTestService, type TestService, type TestUser } from "../testing/harness";
import { settle } from "../testing/records-support";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

/** A job with these skills and budget, then settled as `outcome` (what the chain and the settlement worker leave behind). */
async function settledJob(
  poster: TestUser,
  skill: string,
  budget: string,
  outcome: Parameters<typeof settle>[2] = "RELEASED",
) {
  const job = await poster.client.createJob({ body: jobInput({ budget, requiredSkills: [skill] }) });
  await settle(service, job.data.id, outcome);
  return job.data.id;
}

describe("GET /v1/jobs/budget-suggestions", () => {
  it("gives the quartiles of what jobs sharing a skill paid, counting only escrow released to an agent", async () => {
    const poster = await newUser(service);
    const skill = `cartography-${randomUUID().slice(0, 8)}`;
    for (const budget of ["10", "20", "30", "40"]) await settledJob(poster, skill, budget);
    // A refund, a release still pending and an open job paid nobody: they must not move the figures.
    await settledJob(poster, skill, "900", "REFUNDED");
    await settledJob(poster, skill, "900", "RELEASE_PENDING");
    await poster.client.createJob({ body: jobInput({ budget: "900", requiredSkills: [skill] }) });

    // Skills match ignoring case, and the path is not read as a job id.
    const res = await service.http("GET", `/v1/jobs/budget-suggestions?skills=${skill.toUpperCase()},unrelated-skill`);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      basis: "SKILLS",
      sampleSize: 4,
      lowUsdc: "17.5",
      medianUsdc: "25",
      highUsdc: "32.5",
    });
  });

  it("falls back to every settled job, and says so, when too few jobs with the skills were settled", async () => {
    const poster = await newUser(service);
    const skill = `rare-${randomUUID().slice(0, 8)}`;
    await settledJob(poster, skill, "12");
    const { data } = await service.client().getBudgetSuggestions({ query: { skills: [skill] } });
    expect(data.basis).toBe("ALL");
    expect(data.sampleSize).toBeGreaterThanOrEqual(3);
    expect(data.medianUsdc).not.toBeNull();
  });

  it("refuses more skills than a job may list, in the error envelope", async () => {
    const skills = Array.from({ length: 21 }, (_, i) => `s${i}`).join(",");
    const res = await service.http("GET", `/v1/jobs/budget-suggestions?skills=${skills}`);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("VALIDATION_FAILED");
  });
});
