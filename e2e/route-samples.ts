import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { apiClient, outboxPath, signedInHuman } from "./api-actors";

// Every page route of the app with a sample URL of demo data and who can see it: the accessibility
// spec (axe) and the phone-width spec (no horizontal scroll at 390 px) visit the same list. A new
// page without a sample here fails the accessibility spec's first test.

const APP_DIR = path.join(process.cwd(), "app");

/** Every page route of the app, as its file path pattern ("/jobs/[id]/review"); route groups dropped. */
export function appRoutes(dir = APP_DIR, prefix = ""): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (!statSync(full).isDirectory()) {
      if (entry === "page.tsx") found.push(prefix || "/");
      continue;
    }
    const segment = /^\(.*\)$/.test(entry) ? "" : `/${entry}`;
    found.push(...appRoutes(full, prefix + segment));
  }
  return found.sort();
}

export interface Sample {
  /** The URL to open, from the demo data made below. */
  url: (d: DemoData) => string;
  /** Who can see the page: signed-out visitors are redirected to sign in on the rest. */
  as: Array<"visitor" | "person" | "agent" | "operator">;
}

export interface DemoData {
  jobId: string;
  agentId: string;
  threadSlug: string;
  replyId: string;
  packId: string;
  agentKey: string;
  /** The poster's user id (its public profile). */
  posterId: string;
}

// Pages that exist only for a development aid or are the sign-in flow itself are still checked.
export const ROUTE_SAMPLES: Record<string, Sample> = {
  "/admin": { url: () => "/admin", as: ["operator", "person"] },
  "/admin/audit": { url: () => "/admin/audit", as: ["operator"] },
  "/admin/campaigns": { url: () => "/admin/campaigns", as: ["operator"] },
  "/admin/disputes": { url: () => "/admin/disputes", as: ["operator"] },
  "/admin/disputes/[id]": { url: (d) => `/admin/disputes/${d.jobId}`, as: ["operator"] },
  "/admin/deposits": { url: () => "/admin/deposits", as: ["operator"] },
  "/admin/fees": { url: () => "/admin/fees", as: ["operator"] },
  "/admin/moderation": { url: () => "/admin/moderation", as: ["operator"] },
  "/admin/packs": { url: () => "/admin/packs", as: ["operator"] },
  "/admin/people": { url: () => "/admin/people?q=Axe", as: ["operator"] },
  "/certificates/[code]": { url: () => "/certificates/NOSUCHCODE", as: ["visitor"] },
  "/packs/mine": { url: () => "/packs/mine", as: ["person"] },
  "/packs/new": { url: () => "/packs/new", as: ["person"] },
  "/": { url: () => "/", as: ["visitor", "person", "agent"] },
  "/agents": { url: () => "/agents", as: ["person", "agent"] },
  "/agents/[id]": { url: (d) => `/agents/${d.agentId}`, as: ["visitor", "person", "agent"] },
  "/agents/[id]/identity": { url: (d) => `/agents/${d.agentId}/identity`, as: ["person"] },
  "/cases": { url: () => "/cases", as: ["person"] },
  "/claim/[token]": { url: () => "/claim/not-a-real-token", as: ["visitor"] },
  "/dev/outbox": { url: () => outboxPath(), as: ["visitor"] },
  "/empty": { url: () => "/empty", as: ["visitor"] },
  "/inbox": { url: () => "/inbox", as: ["person"] },
  "/forum": { url: () => "/forum", as: ["visitor", "person", "agent"] },
  "/forum/[slug]": { url: (d) => `/forum/${d.threadSlug}`, as: ["visitor", "person", "agent"] },
  "/forum/[slug]/edit": { url: (d) => `/forum/${d.threadSlug}/edit`, as: ["person"] },
  "/forum/new": { url: () => "/forum/new", as: ["person", "agent"] },
  "/forum/replies/[id]/edit": { url: (d) => `/forum/replies/${d.replyId}/edit`, as: ["person"] },
  "/jobs": { url: () => "/jobs", as: ["visitor", "person", "agent"] },
  "/jobs/[id]": { url: (d) => `/jobs/${d.jobId}`, as: ["visitor", "person", "agent"] },
  "/jobs/[id]/fund": { url: (d) => `/jobs/${d.jobId}/fund`, as: ["person"] },
  "/jobs/[id]/edit": { url: (d) => `/jobs/${d.jobId}/edit`, as: ["person"] },
  "/jobs/[id]/feedback": { url: (d) => `/jobs/${d.jobId}/feedback`, as: ["person"] },
  "/jobs/[id]/review": { url: (d) => `/jobs/${d.jobId}/review`, as: ["person"] },
  "/jobs/[id]/submit": { url: (d) => `/jobs/${d.jobId}/submit`, as: ["agent"] },
  "/jobs/new": { url: () => "/jobs/new", as: ["person", "agent"] },
  "/join": { url: () => "/join", as: ["visitor"] },
  "/me/jobs": { url: () => "/me/jobs", as: ["person", "agent"] },
  "/people/[id]": { url: (d) => `/people/${d.posterId}`, as: ["visitor", "person", "agent"] },
  "/packs": { url: () => "/packs", as: ["visitor", "person", "agent"] },
  "/packs/[id]": { url: (d) => `/packs/${d.packId}`, as: ["visitor", "agent"] },
  "/packs/attempts/[id]": { url: () => "/packs/attempts/00000000-0000-4000-8000-000000000000", as: ["agent"] },
  "/rewards": { url: () => "/rewards", as: ["visitor", "person"] },
  "/rewards/payout": { url: () => "/rewards/payout", as: ["person"] },
  "/rewards/referrals": { url: () => "/rewards/referrals", as: ["agent"] },
  "/settings/notifications": { url: () => "/settings/notifications", as: ["person"] },
  "/settings/profile": { url: () => "/settings/profile", as: ["person"] },
  "/settings/webhooks": { url: () => "/settings/webhooks", as: ["person"] },
  "/settings/notifications/verify": {
    url: () => "/settings/notifications/verify?token=not-a-real-token",
    as: ["visitor"],
  },
  "/unsubscribe": { url: () => "/unsubscribe?token=not-a-real-token", as: ["visitor"] },
  "/share/jobs/[id]": { url: (d) => `/share/jobs/${d.jobId}`, as: ["visitor"] },
  "/sign-in": { url: () => "/sign-in", as: ["visitor"] },
};

export async function makeDemoData(): Promise<DemoData> {
  const stamp = Date.now();
  const signup = (
    await apiClient().signUpAgent({ body: { ownerEmail: `axe-${stamp}@example.test`, name: `Axe Agent ${stamp}` } })
  ).data;
  const agent = apiClient(signup.apiKey);
  await agent.heartbeat({});
  const poster = await signedInHuman("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title: `Accessible job ${stamp}`,
        description: "A job whose pages are checked by axe-core in every signed-in state.",
        acceptanceCriteria: ["Checked"],
        inputData: { budgetType: "bid" },
        isPubliclyShareable: true,
        budget: "5",
      },
    })
  ).data;
  await agent.placeBid({
    params: { id: job.id },
    body: { agentId: signup.agent.id, proposedUsdc: "5", coverLetter: "I can do this." },
  });
  const thread = (
    await poster.client.createThread({
      body: {
        title: `Accessibility of the forum ${stamp}`,
        body: `A thread whose page is checked by axe-core, with a reply below it (${stamp}).`,
        category: "agent-lounge",
        intent: "question",
      },
    })
  ).data;
  const reply = (
    await poster.client.createReply({
      params: { slugOrId: thread.id },
      body: { body: `A reply of ${stamp}, checked for accessibility.` },
    })
  ).data;
  const packs = (await apiClient().listEvalPacks({ query: {} })).data;
  return {
    jobId: job.id,
    agentId: signup.agent.id,
    threadSlug: thread.slug,
    replyId: reply.id,
    packId: packs[0]?.id ?? "none",
    agentKey: signup.apiKey,
    posterId: job.posterId,
  };
}
