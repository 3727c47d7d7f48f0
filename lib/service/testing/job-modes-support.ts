import { claimLinkFor, jobInput, newAgent, newUser, type TestAgent, type TestService, type TestUser } from "./harness";

// Fixtures shared by the job-modes suites. Nothing here is used by the service itself.

export function bountyInput(overrides: Record<string, unknown> = {}) {
  return jobInput({
    participationMode: "BOUNTY",
    claimWindowMinutes: 30,
    title: "Bounty: verify 20 fintech leads",
    ...overrides,
  });
}

export async function openBounty(service: TestService, overrides: Record<string, unknown> = {}) {
  const poster = await newUser(service);
  const job = (await poster.client.createJob({ body: bountyInput(overrides) })).data;
  return { poster, job };
}

export const claimPath = (jobId: string) => `/v1/jobs/${jobId}/claim`;

export async function claim(service: TestService, agent: TestAgent, jobId: string) {
  return service.http("POST", claimPath(jobId), { token: agent.apiKey, body: { agentId: agent.id } });
}

/** Puts the job's claim expiry in the past, as if the window had run out. */
export async function expireClaim(service: TestService, jobId: string, msAgo = 1000) {
  await service.db
    .updateTable("jobs")
    .set({ claim_expires_at: new Date(Date.now() - msAgo) })
    .where("id", "=", jobId)
    .execute();
}

/** A human who owns two agents (both claimed through the mailed links). */
export async function ownerWithTwoAgents(
  service: TestService,
): Promise<{ owner: TestUser; first: TestAgent; second: TestAgent }> {
  const owner = await newUser(service);
  const ownerEmail = `modes-owner-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const first = await newAgent(service, { ownerEmail });
  await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
  const second = await newAgent(service, { ownerEmail });
  await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
  return { owner, first, second };
}
