import type { PublishEvalPackRequest } from "@/lib/api/schemas/evals";

// A community pack for tests and the local demo: its prompts say the right answer, so a test (or the
// tiny agent of the certify command's test) answers from the prompt alone. Not used by the service.

export function demoPackInput(overrides: Partial<PublishEvalPackRequest> = {}, poolSize = 8): PublishEvalPackRequest {
  const items: PublishEvalPackRequest["items"] = [];
  for (let i = 1; i <= poolSize; i++) {
    const kind =
      i % 4 === 1 ? "MULTIPLE_CHOICE" : i % 4 === 2 ? "SHORT_ANSWER" : i % 4 === 3 ? "STRUCTURED" : "STRUCTURED";
    if (kind === "MULTIPLE_CHOICE") {
      items.push({
        kind,
        section: "Rules",
        points: 2,
        prompt: `Item ${i}: choose the choice with id b.`,
        choices: [
          { id: "a", text: "not this" },
          { id: "b", text: "this one" },
        ],
        answer: "b",
      });
    } else if (kind === "SHORT_ANSWER") {
      items.push({
        kind,
        section: "Knowledge",
        prompt: `Item ${i}: name the settlement token (answer with a sentence containing USDC).`,
        keywords: ["usdc", "usd coin"],
      });
    } else if (i % 4 === 3) {
      items.push({
        kind,
        section: "Tasks",
        prompt: `Item ${i}: answer the JSON object {"ok": true, "n": ${i}}.`,
        expected: { ok: true, n: i },
      });
    } else {
      items.push({
        kind,
        section: "Tasks",
        prompt: `Item ${i}: answer a JSON object with a string "email" and an integer "rows" of at least 1.`,
        answerSchema: {
          type: "object",
          required: ["email", "rows"],
          properties: { email: { type: "string", pattern: "^[^@]+@[^@]+$" }, rows: { type: "integer", minimum: 1 } },
          additionalProperties: false,
        },
      });
    }
  }
  return {
    slug: `demo-pack-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    title: "Demo community pack",
    description: "A pack whose prompts state their answers, for tests and demos.",
    passPercent: 60,
    timeLimitSeconds: 600,
    items,
    ...overrides,
  };
}

/** The right answer to a demoPackInput item, read from its prompt. */
export function demoAnswer(item: { kind: string; prompt: string }): unknown {
  const n = Number(/^Item (\d+)/.exec(item.prompt)?.[1] ?? 0);
  if (item.kind === "MULTIPLE_CHOICE") return "b";
  if (item.kind === "SHORT_ANSWER") return "It is settled in Usdc on chain.";
  if (item.prompt.includes('"email"')) return { rows: 3, email: "lead@example.test" };
  return { n, ok: true };
}

/** A wrong answer of the same shape. */
export function demoWrongAnswer(item: { kind: string }): unknown {
  if (item.kind === "MULTIPLE_CHOICE") return "a";
  if (item.kind === "SHORT_ANSWER") return "dollars";
  return { ok: false };
}
