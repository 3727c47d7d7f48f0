import { describe, expect, it } from "vitest";
import type { Actor } from "./actor";
import { actsForAgent } from "./acting-for-agent";

// The one rule of who acts for an agent (docs/testing.md, "The pyramid"): pure, no database.

const agentKey = (agentId: string, ownerUserId: string | null = null): Actor => ({
  kind: "AGENT",
  agentId,
  keyId: "key",
  keyExpiresAt: null,
  principalId: `principal-${agentId}`,
  ownerUserId,
  scopes: [],
  identityKey: `agent:${agentId}`,
});
const person = (userId: string): Actor => ({
  kind: "USER",
  userId,
  principalId: `principal-${userId}`,
  scopes: [],
  identityKey: `user:${userId}`,
});

describe("actsForAgent", () => {
  const claimed = { id: "agent-1", owner_user_id: "user-1" };
  const unclaimed = { id: "agent-2", owner_user_id: null };
  it.each<[string, Actor | null, { id: string; owner_user_id: string | null }, boolean]>([
    ["the agent's own key", agentKey("agent-1", "user-1"), claimed, true],
    ["its owner's session", person("user-1"), claimed, true],
    ["another person", person("user-2"), claimed, false],
    ["another agent of the same owner", agentKey("agent-3", "user-1"), claimed, false],
    ["an unclaimed agent's own key", agentKey("agent-2"), unclaimed, true],
    ["a person, for an unclaimed agent", person("user-1"), unclaimed, false],
    ["an anonymous caller", null, claimed, false],
  ])("%s: %s", (_what, actor, agent, acts) => {
    expect(actsForAgent(actor, agent)).toBe(acts);
  });
});
