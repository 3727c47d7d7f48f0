import { describe, expect, it } from "vitest";
import type { ChainConfig } from "@/lib/chain/config";
import { defaultServiceConfig } from "../config";
import { OFFLINE_CHAIN, startTestService } from "../testing/harness";
import { escrowWindowProblems } from "./escrow-expiry";

// The startup check of the escrow windows (docs/escrow-v2.md, step 5): a deployment with EscrowV2
// whose proof hold, review and dispute windows cannot fit the longest expiry the contract takes
// (400 days) refuses to start, with a message naming the windows; the defaults start.

const WITH_V2 = { ...OFFLINE_CHAIN, escrowV2Address: "0x5555555555555555555555555555555555555555" } as ChainConfig;

describe("the startup check of the escrow windows", () => {
  it("the default windows fit; a ruling window that pushes the need past 400 days does not, and the message says which", () => {
    expect(escrowWindowProblems(defaultServiceConfig())).toEqual([]);
    // 1 h + 720 h hold + 72 + 72 + 8,500 + 24 h margin = 9,389 h, under the 9,599 h the contract takes.
    expect(escrowWindowProblems(defaultServiceConfig({ disputeRulingHours: 8_500 }))).toEqual([]);
    const [problem, ...rest] = escrowWindowProblems(defaultServiceConfig({ disputeRulingHours: 9_000 }));
    expect(rest).toEqual([]);
    expect(problem).toMatch(/dispute ruling 9000 h \(DISPUTE_RULING_HOURS\)/);
    expect(problem).toMatch(/at most 9599 h/);
    expect(escrowWindowProblems(defaultServiceConfig({ reviewWindowHours: Number.NaN }))).toEqual([
      "reviewWindowHours is NaN, not a number of hours",
    ]);
  });

  it("a service with EscrowV2 and windows too long refuses to start; without EscrowV2 (nothing expires) it starts", async () => {
    await expect(startTestService({ chain: WITH_V2, disputeRulingHours: 9_000 })).rejects.toThrow(
      /the service refuses to start: the escrow windows do not fit the longest expiry EscrowV2 takes/,
    );
    const fine = await startTestService({ chain: WITH_V2 });
    expect((await fine.http("GET", "/v1/chain")).status).toBe(200);
    await fine.stop();
    const v1Only = await startTestService({ disputeRulingHours: 9_000 });
    expect((await v1Only.http("GET", "/v1/chain")).status).toBe(200);
    await v1Only.stop();
  });
});
