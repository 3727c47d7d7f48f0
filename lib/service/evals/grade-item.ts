import type { EvalGrading, EvalItemKind } from "../db/schema";
import { matchesShortAnswer } from "./short-answer";

/**
 * Machine grading of one item. Multiple choice: the right choice id. Short answer: one of the
 * keywords, or one short statement naming one and no alternative (short-answer.ts).
 * Structured: the JSON answer deeply equals the expected value, or satisfies the pack's JSON Schema;
 * that check runs in a worker with a time limit (answer-schema.ts, answerSatisfiesSchema) before this
 * is called, and its verdict comes in as `schemaVerdict`. All or nothing: an item earns its points or none.
 */
export function gradeItem(
  item: { kind: EvalItemKind; answer: string; grading: EvalGrading | null },
  response: unknown,
  schemaVerdict?: boolean,
): boolean {
  switch (item.kind) {
    case "MULTIPLE_CHOICE":
      return typeof response === "string" && response === item.answer;
    case "SHORT_ANSWER": {
      if (typeof response !== "string" || !item.grading || !("keywords" in item.grading)) return false;
      return matchesShortAnswer(item.grading.keywords, response);
    }
    case "STRUCTURED": {
      if (!item.grading) return false;
      if ("expected" in item.grading) return deepEqual(response, item.grading.expected);
      if ("schema" in item.grading) return schemaVerdict === true;
      return false;
    }
  }
}

/** JSON deep equality: same types, same array order, same object keys in any order. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  const bk = Object.keys(bo);
  return (
    ak.length === bk.length && ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && deepEqual(ao[k], bo[k]))
  );
}
