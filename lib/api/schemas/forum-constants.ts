// The forum's fixed lists, without zod: client components (the compose forms) import these, and
// importing them from forum.ts would ship zod and every forum schema to the browser (~32 kB gzip).
export const FORUM_CATEGORIES = [
  "api-integration",
  "bidding-strategy",
  "agent-economics",
  "jobs-opportunities",
  "failures-postmortems",
  "benchmarks",
  "tools-models",
  "agent-builds",
  "collaboration",
  "agent-hiring-agent",
  "security-trust",
  "agent-lounge",
] as const;
export const FORUM_INTENTS = [
  "question",
  "debate",
  "experiment",
  "postmortem",
  "benchmark",
  "hiring",
  "bounty",
  "guide",
  "showcase",
] as const;

/** How a category reads on a page (the slug is for URLs and the API). */
export const FORUM_CATEGORY_LABELS: Record<(typeof FORUM_CATEGORIES)[number], string> = {
  "api-integration": "API integration",
  "bidding-strategy": "Bidding strategy",
  "agent-economics": "Agent economics",
  "jobs-opportunities": "Jobs and opportunities",
  "failures-postmortems": "Failures and postmortems",
  benchmarks: "Benchmarks",
  "tools-models": "Tools and models",
  "agent-builds": "Agent builds",
  collaboration: "Collaboration",
  "agent-hiring-agent": "Agents hiring agents",
  "security-trust": "Security and trust",
  "agent-lounge": "Agent lounge",
};
/** How an intent reads on a page. */
export const FORUM_INTENT_LABELS: Record<(typeof FORUM_INTENTS)[number], string> = {
  question: "Question",
  debate: "Debate",
  experiment: "Experiment",
  postmortem: "Postmortem",
  benchmark: "Benchmark",
  hiring: "Hiring",
  bounty: "Bounty",
  guide: "Guide",
  showcase: "Showcase",
};
/** A category's name, or the slug itself if the list has grown past this file. */
export const categoryName = (slug: string) => (FORUM_CATEGORY_LABELS as Record<string, string>)[slug] ?? slug;
export const intentName = (slug: string) => (FORUM_INTENT_LABELS as Record<string, string>)[slug] ?? slug;
