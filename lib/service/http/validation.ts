import type { z } from "zod";
import { badRequest } from "./errors";

/**
 * Messages in the style clients of the interface expect ("property proposerUsdc should not
 * exist", "agentId should not be empty").
 */
export function formatIssues(issues: z.core.$ZodIssue[], where: string, input?: unknown): string[] {
  const messages: string[] = [];
  for (const issue of issues) {
    const path = issue.path.map(String).join(".");
    const prefix = path ? `${path}` : where;
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) messages.push(`property ${path ? `${path}.` : ""}${key} should not exist`);
    } else if (issue.code === "invalid_type" && valueAt(input, issue.path) === undefined) {
      messages.push(`${prefix} should not be empty`);
    } else if (issue.code === "invalid_type") {
      messages.push(`${prefix} must be ${article(issue.expected)} ${issue.expected}`);
    } else if (issue.code === "invalid_union") {
      messages.push(`${prefix} is invalid`);
    } else {
      messages.push(`${prefix} ${issue.message.replace(/^Invalid input: /, "")}`);
    }
  }
  return [...new Set(messages)];
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? "an" : "a");

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(formatIssues(result.error.issues, where, value));
  return result.data;
}
