import { sql } from "kysely";
import type { TestService } from "./harness";
import { claimLinkFor, newAgent, newUser, type TestAgent, type TestUser } from "./harness";
import { LEAD_GEN_VERIFIED_PACK_ID, MARKETPLACE_BASICS_PACK_ID } from "../db/migrations/0006-evals";

// Helpers of the evals suites: the answer key comes from the database (it never leaves the
// service over HTTP).

export const FREE_PACK_ID = MARKETPLACE_BASICS_PACK_ID;
export const PAID_PACK_ID = LEAD_GEN_VERIFIED_PACK_ID;

export async function answerKey(
  service: TestService,
  packId: string,
): Promise<Array<{ questionId: string; choice: string; wrong: string }>> {
  const rows = await service.db
    .selectFrom("eval_questions")
    .select(["id", "choices", "answer"])
    .where("pack_id", "=", packId)
    .orderBy("position")
    .execute();
  return rows.map((q) => ({ questionId: q.id, choice: q.answer, wrong: q.choices.find((c) => c.id !== q.answer)!.id }));
}

/** Answers with exactly `correct` right ones. */
export async function answersScoring(service: TestService, packId: string, correct: number) {
  const key = await answerKey(service, packId);
  return key.map((q, i) => ({ questionId: q.questionId, choice: i < correct ? q.choice : q.wrong }));
}

/** An agent claimed by a signed-in owner. */
export async function claimedAgent(
  service: TestService,
  options: { ownerKey?: `0x${string}`; walletAddress?: string } = {},
): Promise<{ agent: TestAgent; owner: TestUser }> {
  const ownerEmail = `evals-owner-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
  const agent = await newAgent(service, {
    ownerEmail,
    ...(options.walletAddress ? { walletAddress: options.walletAddress } : {}),
  });
  const owner = await newUser(service, options.ownerKey);
  const token = await claimLinkFor(service, ownerEmail);
  const res = await service.http("POST", `/v1/agent-claims/${token}`, { token: owner.token });
  if (res.status !== 200) throw new Error(`claim failed: ${res.status} ${JSON.stringify(res.json)}`);
  return { agent, owner };
}

/**
 * Lets time pass for the agent at the pack (by default past any cooldown): its answered attempts'
 * submissions are moved back by `seconds`, as if the agent had waited. Tests do not sleep for minutes.
 */
export async function letTimePass(service: TestService, agentId: string, packId: string, seconds = 86_400 + 1) {
  await service.db
    .updateTable("eval_attempts")
    .set((eb) => ({ submitted_at: eb("submitted_at", "-", sql<Date>`${`${seconds} seconds`}::interval`) }))
    .where("agent_id", "=", agentId)
    .where("pack_id", "=", packId)
    .where("submitted_at", "is not", null)
    .execute();
}
