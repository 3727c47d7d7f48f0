import type { PublishEvalPackRequest } from "@/lib/api/schemas/evals";
import { demoPackInput } from "@/lib/testing/demo-pack";

// Packs and answers that once held the service (an attacker's, kept for the tests that keep them
// harmless): a schema too big to compile on the request path, a pattern that backtracks
// exponentially in V8's engine, and an answer quadratic to check.

/** An `anyOf` whose one branch has 2,500 properties: ~200 kB, under the body limit; Ajv took 11.5 s to compile it. */
export function hugeAnswerSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 2_500; i++)
    properties[`field_${i}_with_a_long_name`] = { type: "string", minLength: 1, maxLength: 40, description: "a field" };
  return { anyOf: [{ type: "object", properties }] };
}

export const EVIL_PATTERN = "^([a-zA-Z0-9]+\\s?)+$";
/** 18.7 s in V8's backtracking engine against EVIL_PATTERN. */
export const EVIL_PATTERN_ANSWER = `${"a".repeat(29)}!`;

/** 18,000 distinct small objects (~220 kB): uniqueItems compares every pair (Ajv's check is quadratic). */
export function quadraticAnswer(): unknown[] {
  return Array.from({ length: 18_000 }, (_, i) => ({ a: i }));
}

/** A pack with a pattern item, a uniqueItems item and four plain ones; prompts say which is which. */
export function hostilePackInput(): PublishEvalPackRequest {
  const plain = demoPackInput({}, 4).items;
  return demoPackInput({
    items: [
      ...plain,
      {
        kind: "STRUCTURED",
        section: "Tasks",
        prompt: "PATTERN: answer a string of words.",
        answerSchema: { type: "string", pattern: EVIL_PATTERN },
      },
      {
        kind: "STRUCTURED",
        section: "Tasks",
        prompt: "UNIQUE: answer an array of distinct values.",
        answerSchema: { type: "array", uniqueItems: true },
      },
    ],
    itemsPerAttempt: 6,
  });
}
