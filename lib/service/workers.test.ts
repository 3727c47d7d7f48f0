import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Worker } from "./context";
import { startTestService, type TestService } from "./testing/harness";
import { startWorkers } from "./workers";

// A round that never ends (a database or an RPC that stopped answering) must not stop its worker:
// it is abandoned at its deadline, the failure is recorded, and the next rounds run.

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.stop();
});

describe("worker round deadline", () => {
  it("a hung round is abandoned at its deadline and the worker runs again, without a restart", async () => {
    const name = `test-hung-${process.pid}-${Date.now()}`;
    let rounds = 0;
    const hung: Worker = {
      name,
      everyMs: 20,
      deadlineMs: 200,
      // The first round hangs for ever; every later one ends at once.
      run: () => (++rounds === 1 ? new Promise<void>(() => {}) : Promise.resolve()),
    };
    const startedAt = Date.now();
    const stop = startWorkers(service.ctx, [hung]);
    try {
      for (let i = 0; i < 100 && rounds < 3; i++) await new Promise((r) => setTimeout(r, 50));
    } finally {
      stop();
    }
    expect(rounds).toBeGreaterThanOrEqual(3);
    const row = await service.db
      .selectFrom("worker_heartbeats")
      .selectAll()
      .where("name", "=", name)
      .executeTakeFirstOrThrow();
    // Rounds after the abandoned one succeeded (last_run_at moved, the error cleared by a success).
    expect(row.last_run_at!.getTime()).toBeGreaterThanOrEqual(startedAt);
    expect(row.last_error).toBeNull();
    await service.db.deleteFrom("worker_heartbeats").where("name", "=", name).execute();
  });
});
