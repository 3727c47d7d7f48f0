import { expect } from "vitest";
import { HTTP_ERROR_NAMES, statusesOf, type ErrorCode } from "@/lib/api/schemas/errors";
import type { TestService } from "./harness";

type Res = Awaited<ReturnType<TestService["http"]>>;

/**
 * The error envelope: {statusCode, error, message, code}, with a catalogue code under
 * one of its statuses; message a string, and validation errors list them in messages. Returns the messages as a list.
 */
export function expectError(res: Res, status: number, code: ErrorCode): string[] {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(statusesOf(code), `${code} answers ${status} in ERROR_CATALOGUE`).toContain(status);
  expect(res.json).toMatchObject({ statusCode: status, error: HTTP_ERROR_NAMES[status], code });
  // One shape: message is always a string; validation errors list each problem in messages too.
  expect(typeof res.json.message).toBe("string");
  if (code === "VALIDATION_FAILED") {
    expect(Array.isArray(res.json.messages)).toBe(true);
    expect(res.json.message).toBe(res.json.messages.join("; "));
  }
  const messages: unknown[] = res.json.messages ?? [res.json.message];
  expect(messages.length).toBeGreaterThan(0);
  for (const m of messages) expect(typeof m).toBe("string");
  return messages as string[];
}
