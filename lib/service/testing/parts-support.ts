import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import type { TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { jobInput, newAgent, newUser, type TestAgent, type TestService, type TestUser } from "./harness";

/**
 * A job paid in parts on a real chain, for the suites that follow its money (records, reviews,
 * fees, approval without a wallet): a local site whose every page carries the job's marker and
 * the marker of the part its path names (/part-2 carries part 2's), the job posted with its plan,
 * funded from an anvil account, its bid accepted, and the part actions on the HTTP surface.
 */
export const JOB_MARKER = "parts-job-marker-7c41";
export const partMarker = (n: number) => `parts-part-${n}-marker-3f08`;

export async function startPartsSite(): Promise<{ url: string; close: () => void }> {
  const site = http.createServer((req, res) => {
    const n = /part-(\d+)/.exec(req.url ?? "")?.[1];
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<html><head><title>Work</title></head><body><h1>Delivered work</h1><p>${JOB_MARKER}</p>${n ? `<p>${partMarker(Number(n))}</p>` : ""}</body></html>`,
    );
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(site.address() as AddressInfo).port}`, close: () => site.close() };
}

export const hexOfWire = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;

export interface PartsJob {
  poster: TestUser;
  agent: TestAgent;
  jobId: string;
  escrowJobId: `0x${string}`;
}

/** A job of `amounts` (USDC each; the budget is their sum), funded by account `payer` and assigned to a new agent. */
export async function assignedPartsJob(
  service: TestService,
  chain: TestChain,
  options: {
    payer: number;
    amounts: string[];
    agentWallet: `0x${string}` | null;
    poster?: TestUser;
    agentOwnerEmail?: string;
    proofHoldHours?: number;
  },
): Promise<PartsJob> {
  const poster = options.poster ?? (await newUser(service, chain.accounts[options.payer]!.privateKey));
  const budget = options.amounts.reduce((sum, a) => sum + parseUsdc(a), 0n);
  const budgetText = (Number(budget) / 1e6).toString();
  const created = await service.http("POST", "/v1/jobs", {
    token: poster.token,
    body: jobInput({
      budget: budgetText,
      inputData: { budgetType: "bid", proofHoldHours: options.proofHoldHours ?? 0, proofContentMarker: JOB_MARKER },
      milestones: options.amounts.map((amountUsdc, i) => ({
        title: `Part ${i + 1}`,
        amountUsdc,
        acceptanceCriteria: `The part ${i + 1} of the work`,
        proofContentMarker: partMarker(i + 1),
      })),
    }),
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const job = created.json.data;
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[options.payer]!.privateKey,
    escrowJobId: hexOfWire(job.escrowJobId),
    amount: budget,
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  const agent = await newAgent(service, {
    ...(options.agentWallet ? { walletAddress: options.agentWallet } : {}),
    ...(options.agentOwnerEmail ? { ownerEmail: options.agentOwnerEmail } : {}),
  });
  const bid = (
    await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: budgetText } })
  ).data;
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
  return { poster, agent, jobId: job.id, escrowJobId: hexOfWire(job.escrowJobId) };
}

/** POST /v1/jobs/:id/milestones/:n/<verb> with a credential. */
export const partAction = (
  service: TestService,
  job: PartsJob,
  n: number,
  verb: string,
  token: string,
  body?: unknown,
) => service.http("POST", `/v1/jobs/${job.jobId}/milestones/${n}/${verb}`, { token, ...(body ? { body } : {}) });

/** The agent delivers part `n` at the site's page for it. */
export async function submitPart(service: TestService, job: PartsJob, n: number, siteUrl: string) {
  const res = await partAction(service, job, n, "submit", job.agent.apiKey, {
    outputData: { url: `${siteUrl}/part-${n}` },
  });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res;
}
