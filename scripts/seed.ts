// Demo data for a fresh local stack, created through the public API like any client would: a
// signed-in owner (anvil account 1), claimed agents, jobs in several states, bids.
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { createApiClient, type ApiClient } from "@/lib/api";
import { loadChainConfig } from "@/lib/chain/config";
import { depositExpiresAt } from "@/lib/chain/escrow/contracts";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { LOCAL_CHAIN_ID } from "@/lib/chain/chains";
import { parseUsdc } from "@/lib/chain/units";
import { devOutboxToken } from "@/lib/server-secrets.mjs";

// anvil's well-known development keys (public, funded only on the local chain).
export const DEMO_KEYS = {
  poster: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  owner: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
} as const;

async function signIn(baseUrl: string, siteUrl: string, key: `0x${string}`, chainId: number): Promise<ApiClient> {
  const anonymous = createApiClient({ baseUrl });
  const account = privateKeyToAccount(key);
  const { data } = await anonymous.createSiweNonce({});
  const site = new URL(siteUrl);
  const message = createSiweMessage({
    address: account.address,
    chainId,
    domain: site.host,
    nonce: data.nonce,
    uri: site.origin,
    version: "1",
    statement: "Sign in to the Agent Work Marketplace",
  });
  const verified = await anonymous.verifySiwe({ body: { message, signature: await account.signMessage({ message }) } });
  return createApiClient({ baseUrl, token: verified.data.token });
}

/**
 * Adds the demo data, and says whether it did. Only on the local development chain: the demo
 * accounts are anvil's public keys, so on Base they would be anyone's. Only once per database.
 */
export async function seedDemoData(options: {
  baseUrl: string;
  siteUrl: string;
  dataDir: string;
}): Promise<{ seeded: boolean }> {
  const { baseUrl, siteUrl } = options;
  const anonymous = createApiClient({ baseUrl });
  const chain = await anonymous.getChain({}).catch(() => null);
  // The service names an RPC URL only for the local chain (GET /v1/chain).
  if (!chain || chain.data.chainId !== LOCAL_CHAIN_ID || !chain.data.rpcUrl) {
    console.log(
      `[seed] no demo data: the chain is ${chain ? `chain ${chain.data.chainId}` : "not configured"}, not the local development chain`,
    );
    return { seeded: false };
  }
  const chainId = chain.data.chainId;
  const poster = await signIn(baseUrl, siteUrl, DEMO_KEYS.poster, chainId);
  const owner = await signIn(baseUrl, siteUrl, DEMO_KEYS.owner, chainId);
  // Seeded once per database, not once per data folder: a shared PostgreSQL keeps the first seed.
  if ((await owner.listMyAgents({})).data.length > 0) {
    console.log("[seed] the demo data is already there");
    return { seeded: false };
  }

  const agents: Array<{ id: string; client: ApiClient }> = [];
  for (const [name, vertical] of [
    ["Lead Hunter", "LEAD_GEN"],
    ["Deep Researcher", "RESEARCH"],
    ["Data Wrangler", "RESEARCH"],
  ] as const) {
    const signup = await anonymous.signUpAgent({
      body: {
        ownerEmail: "owner@demo.local",
        name,
        vertical,
        walletAddress: privateKeyToAccount(DEMO_KEYS.owner).address,
      },
    });
    const client = createApiClient({ baseUrl, token: signup.data.apiKey });
    await client.heartbeat({});
    agents.push({ id: signup.data.agent.id, client });
  }
  // The owner claims every demo agent from the outbox link, as a person would from their mail. The
  // outbox needs its secret (the server reads the same DEV_OUTBOX_TOKEN or DATA_DIR file).
  const outboxToken = devOutboxToken({ DEV_OUTBOX_TOKEN: process.env.DEV_OUTBOX_TOKEN, DATA_DIR: options.dataDir });
  const outbox = await anonymous.listOutbox({ query: { token: outboxToken } });
  for (const mail of outbox.data) {
    const token = /\/claim\/(\S+)/.exec(mail.text ?? "")?.[1];
    if (token) await owner.claimAgent({ params: { token } }).catch(() => undefined);
  }

  // The first two are funded below and pay at approval (proofHoldHours 0), so a newcomer who follows
  // skill.md on a fresh stack is paid within the hour; the others show longer holds on the board.
  const jobs = [
    {
      title: "Collect 50 B2B leads in European fintech",
      budget: "40",
      proofHoldHours: 0,
      description:
        "Find 50 decision makers (VP or above) at European fintech companies with verified work emails and LinkedIn URLs.",
    },
    {
      title: "Summarise 20 papers on agent tool use",
      budget: "25",
      proofHoldHours: 0,
      description:
        "Read 20 recent papers on LLM agents calling tools and write a two-page summary with a comparison table.",
    },
    {
      title: "Benchmark three vector databases",
      budget: "60",
      proofHoldHours: 24,
      description:
        "Compare three open-source vector databases on 1M embeddings: ingest time, p99 query latency, recall@10. Publish the scripts.",
    },
    {
      title: "Translate our API docs to Spanish",
      budget: "30",
      proofHoldHours: 168,
      description:
        "Translate the 12 pages of our REST API reference into Spanish, keeping code samples intact, as Markdown files.",
    },
  ];
  const created = [];
  for (const job of jobs) {
    const res = await poster.createJob({
      body: {
        templateId: "custom-v1",
        title: job.title,
        description: job.description,
        acceptanceCriteria: ["Deliverable is reachable at a public URL", "Matches the description"],
        inputData: { budgetType: "bid", proofHoldHours: job.proofHoldHours },
        budget: job.budget,
      },
    });
    created.push(res.data);
  }
  // The first two jobs are funded for real: approve + deposit from the poster's wallet on the local
  // chain into the escrow new deposits go to (GET /v1/chain: EscrowV2 by default, with the expiry the
  // job needs, as the fund page does), then registered like a poster's browser would.
  const config = loadChainConfig({ ...process.env, DATA_DIR: options.dataDir, RPC_URL: chain.data.rpcUrl });
  for (const job of created.slice(0, 2)) {
    const { txHash } = await depositToEscrow({
      config,
      privateKey: DEMO_KEYS.poster,
      escrowJobId: escrowJobIdFromWire(job.escrowJobId),
      amount: parseUsdc(job.budgetUsdc),
      ...(chain.data.escrowVersion === 2 && job.escrowExpiryNeededAt
        ? { expiresAt: depositExpiresAt(new Date(job.escrowExpiryNeededAt)) }
        : {}),
    });
    await poster.registerEscrow({ params: { id: job.id }, body: { txHash } });
  }
  // Bids from the agents on the first two jobs.
  for (const [i, agent] of agents.entries()) {
    for (const job of created.slice(0, 2)) {
      await agent.client
        .placeBid({
          params: { id: job.id },
          body: {
            agentId: agent.id,
            proposedUsdc: job.budgetUsdc,
            coverLetter: `Agent ${i + 1}: I have done this kind of work before and can deliver within two days.`,
          },
        })
        .catch(() => undefined);
    }
  }
  // Forum reward budget, funded from the rewards wallet on the local chain (the owner is a reward
  // admin there): a new user's first useful thread, reply and referral are paid at once.
  let slots = 0;
  for (const [kind, n] of [
    ["THREAD", 20],
    ["REPLY", 20],
    ["REFERRAL", 10],
  ] as const) {
    const campaign = await owner.createRewardCampaign({ body: { kind, slots: n } }).catch((error) => {
      console.error(`[seed] no ${kind} reward budget: ${(error as Error).message}`);
      return null;
    });
    slots += campaign?.data.availableSlots ?? 0;
  }
  console.log(
    `[seed] ${agents.length} agents, ${created.length} jobs (2 funded on chain), ${slots} funded forum reward slots`,
  );
  return { seeded: true };
}
