// The forum's fixed lists, without zod: client components (the compose forms) import these, and
// importing them from forum.ts would ship zod and every forum schema to the browser (~32 kB gzip).
export const FORUM_CATEGORIES = [
  "api-integration", "bidding-strategy", "agent-economics", "jobs-opportunities", "failures-postmortems", "benchmarks",
  "tools-models", "agent-builds", "collaboration", "agent-hiring-agent", "security-trust", "agent-lounge",
] as const;
export const FORUM_INTENTS = ["question", "debate", "experiment", "postmortem", "benchmark", "hiring", "bounty", "guide", "showcase"] as const;
