import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApiClient } from "@/lib/api/client";
import { found, foundOrNull, needed, optional } from "@/lib/api/page-data";
import { tryAgainFromDigest } from "@/lib/api/try-again";
import { startTestService, type TestService } from "../testing/harness";

// The dashboard's page-loading idiom (lib/api/page-data.ts) against the real service: what a page
// becomes (the 404 page, "try again" with the service's wait, or the data) for each answer the
// service really gives. Here because only the service's tests may start the service.

const digestOf = async (call: Promise<unknown>) => {
  const error = await call.then(
    () => null,
    (e: unknown) => e as { digest?: string },
  );
  expect(error, "the call should have failed").not.toBeNull();
  return error!.digest;
};

let service: TestService;
let chainless: TestService;
beforeAll(async () => {
  // Two public reads a minute per address, so a third is a real 429 with Retry-After.
  service = await startTestService({
    rateBudgets: { publicReadsPerMinute: 2, authReadsPerMinute: 100, writesPerMinute: 100 },
  });
  // No payment chain configured: GET /v1/chain is a real 503 CHAIN_UNAVAILABLE.
  chainless = await startTestService({ chain: null });
});
afterAll(async () => {
  await service.stop();
  await chainless.stop();
});

/** A client as a page has it: one attempt, so the service's first answer is the page's. */
const pageClient = (baseUrl: string, ip: string) =>
  createApiClient({ baseUrl, maxAttempts: 1, headers: { "x-forwarded-for": ip } });

describe("a page's data through lib/api/page-data", () => {
  it("a thing that does not exist (or an id that cannot name one) is the 404 page; where it may be missing, null", async () => {
    const api = pageClient(service.baseUrl, "10.91.0.1");
    expect(await digestOf(found(api.getPublicJob({ params: { id: randomUUID() } })))).toBe(
      "NEXT_HTTP_ERROR_FALLBACK;404",
    );
    expect(await foundOrNull(api.getPublicJob({ params: { id: "not-a-uuid" } }))).toBeNull();
  });

  it('a 429 is a "try again" page carrying the service\'s Retry-After, never a 404', async () => {
    const api = pageClient(service.baseUrl, "10.91.0.2");
    const id = randomUUID();
    await foundOrNull(api.getPublicJob({ params: { id } }));
    await foundOrNull(api.getPublicJob({ params: { id } }));
    const verdict = tryAgainFromDigest(await digestOf(found(api.getPublicJob({ params: { id } }))));
    expect(verdict?.retryAfterSeconds).toBeGreaterThan(0);
    expect(verdict?.retryAfterSeconds).toBeLessThanOrEqual(60);
    // A detail the page can lack is left out instead.
    expect(await optional(api.getPublicJob({ params: { id } }))).toBeNull();
  });

  it('a 503 is a "try again" page, and so is a service that does not answer at all', async () => {
    const api = pageClient(chainless.baseUrl, "10.91.0.3");
    expect(tryAgainFromDigest(await digestOf(needed(api.getChain({}))))).toEqual({ retryAfterSeconds: null });
    const gone = createApiClient({ baseUrl: "http://127.0.0.1:9", maxAttempts: 1 });
    expect(tryAgainFromDigest(await digestOf(found(gone.getChain({}))))).toEqual({ retryAfterSeconds: null });
  });

  it("an answer is the data, whichever wrapper asks", async () => {
    const api = pageClient(chainless.baseUrl, "10.91.0.4");
    const board = await found(api.listJobs({ query: { limit: 1 } }));
    expect(Array.isArray(board.data)).toBe(true);
  });

  it("logs every failed call on the server once, with the API route, the answer and what the page made of it", async () => {
    const api = pageClient(chainless.baseUrl, "10.91.0.5");
    const lines: Array<Record<string, unknown>> = [];
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => {
      for (const line of String(chunk).split("\n").filter(Boolean)) {
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          if (parsed.part === "dashboard") lines.push(parsed);
        } catch {
          // Not a log line of ours.
        }
      }
      return true;
    });
    try {
      const missing = randomUUID();
      await digestOf(found(api.getPublicJob({ params: { id: missing } })));
      await digestOf(needed(api.getChain({})));
      await optional(api.getPublicJob({ params: { id: missing } }));
      // A call that succeeds is not logged.
      await found(api.listJobs({ query: { limit: 1 } }));
    } finally {
      write.mockRestore();
    }
    expect(lines.map((l) => [l.outcome, l.status, l.code, l.level])).toEqual([
      ["not-found", 404, "NOT_FOUND", 40],
      ["try-again", 503, "CHAIN_UNAVAILABLE", 40],
      ["left-out", 404, "NOT_FOUND", 40],
    ]);
    for (const line of lines) {
      expect(line.msg).toBe("a page's call to the service failed");
      expect(String(line.api)).toMatch(/\/v1\//);
    }
  });
});
