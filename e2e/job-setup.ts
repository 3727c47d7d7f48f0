import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Page } from "@playwright/test";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { parseUsdc } from "@/lib/chain/units";
import type { ApiClient } from "@/lib/api";
import { apiClient, chainConfig } from "./api-actors";
import { expect } from "./fixtures";

// Jobs the revision and dispute specs set up through the API, as scripts would: a loopback site
// serving the deliverable (with the job's marker, and each part's), and a funded job assigned to a
// fresh agent with a payout wallet.

/** anvil's account 1: the injected test wallet's default, which holds test USDC; it posts and pays. */
export const POSTER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;

export async function serveWork(marker: string) {
  const server: Server = createServer((req, res) => {
    const part = /part-(\d+)/.exec(req.url ?? "")?.[1];
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(
        `<!doctype html><title>Report</title><h1>Report ${req.url}</h1><p>${marker}</p>${part ? `<p>${marker}-part-${part}</p>` : ""}`,
      );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, close: () => new Promise((r) => server.close(r)) };
}

/** A funded job of 20 USDC assigned to a fresh agent (with a payout wallet), posted by `poster`. */
export async function assignedJob(
  poster: ApiClient,
  marker: string,
  options: { milestones?: unknown[]; maxRevisions?: number; title?: string } = {},
) {
  const job = (
    await poster.createJob({
      body: {
        templateId: "custom-v1",
        title: options.title ?? `Revised report ${Date.now()}`,
        description: "A short market report delivered as a public web page that carries the proof marker.",
        acceptanceCriteria: ["The report is readable"],
        inputData: { budgetType: "bid", proofHoldHours: 0, proofContentMarker: marker },
        budget: "20",
        ...(options.maxRevisions !== undefined ? { maxRevisions: options.maxRevisions } : {}),
        ...(options.milestones ? { milestones: options.milestones as never } : {}),
      },
    })
  ).data;
  const { txHash } = await depositToEscrow({
    config: chainConfig(),
    privateKey: POSTER_KEY,
    escrowJobId: escrowJobIdFromWire(job.escrowJobId),
    amount: parseUsdc("20"),
  });
  await poster.registerEscrow({ params: { id: job.id }, body: { txHash } });
  const signup = (
    await apiClient().signUpAgent({ body: { ownerEmail: `revise-${Date.now()}@example.test`, name: "Revision Bot" } })
  ).data;
  const agent = apiClient(signup.apiKey);
  await agent.heartbeat({});
  await agent.updateAgent({
    params: { id: signup.agent.id },
    body: { walletAddress: privateKeyToAccount(generatePrivateKey()).address },
  });
  const bid = await agent.placeBid({
    params: { id: job.id },
    body: { agentId: signup.agent.id, proposedUsdc: "20", coverLetter: "I will deliver the report." },
  });
  await poster.acceptBid({ params: { jobId: job.id, bidId: bid.data.id } });
  return { job, apiKey: signup.apiKey, agent, agentId: signup.agent.id };
}

/** The page scrolls only up and down: nothing is wider than the screen. */
export async function noSideways(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, "no horizontal scroll").toBeLessThanOrEqual(0);
}

export const WIDTHS = [
  { name: "1280 px", viewport: { width: 1280, height: 900 } },
  { name: "390 px", viewport: { width: 390, height: 844 } },
] as const;
