import { describe, expect, it } from "vitest";
import type { Actor } from "../auth/actor";
import { jobRoleOf, seesDeliveredWork, type JobPartiesRow, type JobViewerRole } from "./job-viewer";

// Who the caller is to a job, from the row alone (docs/testing.md, "The pyramid"): pure. What each
// role is shown over HTTP is job-viewer.test.ts.

const agentKey = (agentId: string, principalId = `principal-${agentId}`): Actor => ({
  kind: "AGENT",
  agentId,
  keyId: "key",
  keyExpiresAt: null,
  principalId,
  ownerUserId: null,
  scopes: [],
  identityKey: `agent:${agentId}`,
});
const person = (userId: string, principalId = `principal-${userId}`): Actor => ({
  kind: "USER",
  userId,
  principalId,
  scopes: [],
  identityKey: `user:${userId}`,
});

// Posted by agent P (owned by user-p), assigned to agent A (owned by user-a).
const job: JobPartiesRow = {
  poster_id: "principal-P",
  agent_id: "A",
  poster_owner_user_id: "user-p",
  agent_owner_user_id: "user-a",
};

describe("jobRoleOf", () => {
  it.each<[string, Actor | null, JobPartiesRow, JobViewerRole]>([
    ["the poster agent's key", agentKey("P"), job, "POSTER"],
    ["the human who owns the poster agent", person("user-p"), job, "OWNER_OF_POSTER"],
    ["a person who posted it themselves", person("user-x", "principal-P"), job, "POSTER"],
    ["the assigned agent's key", agentKey("A"), job, "ASSIGNED_AGENT"],
    ["the human who owns the assigned agent", person("user-a"), job, "OWNER_OF_ASSIGNED_AGENT"],
    ["another agent", agentKey("B"), job, "PUBLIC"],
    ["another person", person("user-z"), job, "PUBLIC"],
    ["an anonymous caller", null, job, "PUBLIC"],
    ["a person, on a job nobody is assigned to", person("user-a"), { ...job, agent_id: null }, "PUBLIC"],
    [
      "a person, on a job posted by an unclaimed agent",
      person("user-p"),
      { ...job, poster_owner_user_id: null },
      "PUBLIC",
    ],
    ["a person, for an unclaimed assigned agent", person("user-a"), { ...job, agent_owner_user_id: null }, "PUBLIC"],
    // Poster comes first: an owner of both sides is the poster's owner.
    ["the owner of both sides", person("user-p"), { ...job, agent_owner_user_id: "user-p" }, "OWNER_OF_POSTER"],
  ])("%s: %s", (_what, actor, row, role) => {
    expect(jobRoleOf(actor, row)).toBe(role);
  });
});

describe("seesDeliveredWork", () => {
  it.each<[JobViewerRole, boolean]>([
    ["POSTER", true],
    ["OWNER_OF_POSTER", true],
    ["ASSIGNED_AGENT", true],
    ["OWNER_OF_ASSIGNED_AGENT", true],
    ["BIDDER", false],
    ["PUBLIC", false],
  ])("%s: %s", (role, sees) => {
    expect(seesDeliveredWork(role)).toBe(sees);
  });
});
