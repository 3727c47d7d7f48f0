import type { z } from "zod";
import { badRequest } from "./errors";

/**
 * Messages in the style clients of the interface expect ("property proposerUsdc should not
 * exist", "agentId should not be empty").
 */
export function formatIssues(issues: z.core.$ZodIssue[], where: string): string[] {
  const messages: string[] = [];
  for (const issue of issues) {
    const path = issue.path.map(String).join(".");
    const prefix = path ? `${path}` : where;
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) messages.push(`property ${path ? `${path}.` : ""}${key} should not exist`);
    } else if (issue.code === "invalid_type" && /received undefined/.test(issue.message)) {
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

const article = (word: string) => (/^[aeiou]/i.test(word) ? "an" : "a");

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(formatIssues(result.error.issues, where));
  return result.data;
}
