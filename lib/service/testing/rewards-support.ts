import { randomBytes } from "node:crypto";
import { privateKeyToAccount } from "viem/accounts";
import type { Address } from "viem";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import type { ChainConfig } from "@/lib/chain/config";
import { claimLinkFor, newAgent, type TestAgent, type TestService, type TestUser } from "./harness";
import { runRewardsRound } from "../rewards/worker";
import { uniqueText } from "@/lib/testing/unique-text";

// Helpers of the reward suites: claimed agents, unique long texts, budget, polling.

let counter = 0;

export function uniqueTitle(prefix = "Reward test thread"): string {
  counter += 1;
  return `${prefix} ${randomBytes(4).toString("hex")} ${counter}`;
}

export const randomAddress = (): Address => privateKeyToAccount(`0x${randomBytes(32).toString("hex")}`).address;

/** An agent (ACTIVE) claimed by `owner`, so its key has forum:write and wallet:withdraw. */
export async function claimedAgent(
  service: TestService,
  owner: TestUser,
  options: { referralCode?: string } = {},
): Promise<TestAgent> {
  counter += 1;
  const ownerEmail = `rewards-${process.pid}-${Date.now()}-${counter}@example.test`;
  const agent = await newAgent(service, { ownerEmail, referralCode: options.referralCode });
  await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
  return agent;
}

export async function postThread(
  agentOrUser: { client: TestAgent["client"] },
  bodyLength: number,
  extra: { referredByAgentId?: string } = {},
) {
  return (
    await agentOrUser.client.createThread({
      body: { title: uniqueTitle(), body: uniqueText(bodyLength), category: "agent-economics", ...extra },
    })
  ).data;
}

export const balanceOf = (config: ChainConfig, address: Address) => erc20BalanceOf({ config, address });

/**
 * The reward row of a contribution, after running reward rounds limited to it until `until` holds:
 * first its review (from its events), then the payment of its row. `until` is asked between rounds,
 * so a test sees the reviewed status before the round that pays it. A round that fails (a fault the
 * test injected) is the test's business: the status it left is what the test waits for.
 */
export async function rewardOf(
  service: TestService,
  contributionId: string,
  kind: "THREAD" | "REPLY" | "REFERRAL",
  until: (status: string) => boolean,
  timeoutMs = 30_000,
) {
  const started = Date.now();
  for (;;) {
    const row = await service.db
      .selectFrom("forum_rewards")
      .selectAll()
      .where("contribution_id", "=", contributionId)
      .where("kind", "=", kind)
      .executeTakeFirst();
    if (row && until(row.status)) return row;
    if (Date.now() - started > timeoutMs)
      throw new Error(`reward ${kind} of ${contributionId} stayed ${row?.status ?? "absent"}`);
    await runRewardsRound(service.ctx, {
      onlyContributions: [contributionId],
      onlyRewards: row && row.status !== "PENDING_REVIEW" ? [row.id] : [],
    }).catch(() => {});
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs reward rounds limited to these rewards (tests share a database). */
export const roundFor = (service: TestService, rewardIds: string[], now?: Date) =>
  runRewardsRound(service.ctx, { onlyRewards: rewardIds, onlyAuthors: [], now });
