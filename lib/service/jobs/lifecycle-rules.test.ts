import { describe, expect, it } from "vitest";
import {
  cancellationGround,
  editRightsOf,
  hasPartsInFlight,
  isClosedToEdits,
  mayLengthenProofHold,
} from "./lifecycle-rules";

// Pure rules over the job row: no database, no chain, no HTTP (docs/testing.md, "The pyramid").

const NOW = new Date("2026-06-01T12:00:00.000Z");
const BEFORE = new Date(NOW.getTime() - 1);
const AFTER = new Date(NOW.getTime() + 1);

const job = (
  over: Partial<Parameters<typeof cancellationGround>[0]> = {},
): Parameters<typeof cancellationGround>[0] => ({
  status: "OPEN",
  escrow_tx_hash: null,
  deadline_at: null,
  submitted_at: null,
  disputed_at: null,
  parts_in_flight: 0,
  ...over,
});

describe("hasPartsInFlight", () => {
  it.each([
    [0, false],
    [1, true],
    [3, true],
  ])("%i parts in flight: %s", (parts, expected) => {
    expect(hasPartsInFlight({ parts_in_flight: parts })).toBe(expected);
  });
});

describe("cancellationGround", () => {
  const funded = "0xfund";
  it.each<[string, Partial<Parameters<typeof cancellationGround>[0]>, "OPEN" | "UNFUNDED" | "LATE" | null]>([
    ["an OPEN job", {}, "OPEN"],
    ["an OPEN funded job", { escrow_tx_hash: funded }, "OPEN"],
    ["an OPEN job with a part in flight", { parts_in_flight: 1 }, null],
    ["an assigned job never funded", { status: "IN_PROGRESS" }, "UNFUNDED"],
    ["an assigned unfunded job past its deadline", { status: "IN_PROGRESS", deadline_at: BEFORE }, "UNFUNDED"],
    [
      "an assigned funded job before its deadline",
      { status: "IN_PROGRESS", escrow_tx_hash: funded, deadline_at: AFTER },
      null,
    ],
    // The deadline must have passed: at the very instant it is not late yet.
    [
      "an assigned funded job at its deadline",
      { status: "IN_PROGRESS", escrow_tx_hash: funded, deadline_at: NOW },
      null,
    ],
    [
      "an assigned funded job past its deadline",
      { status: "IN_PROGRESS", escrow_tx_hash: funded, deadline_at: BEFORE },
      "LATE",
    ],
    ["an assigned funded job without a deadline", { status: "IN_PROGRESS", escrow_tx_hash: funded }, null],
    [
      "a late job whose work was delivered",
      { status: "IN_PROGRESS", escrow_tx_hash: funded, deadline_at: BEFORE, submitted_at: BEFORE },
      null,
    ],
    [
      "a late job that is disputed",
      { status: "IN_PROGRESS", escrow_tx_hash: funded, deadline_at: BEFORE, disputed_at: BEFORE },
      null,
    ],
    [
      "a late job with a delivered part",
      { status: "IN_PROGRESS", escrow_tx_hash: funded, deadline_at: BEFORE, parts_in_flight: 1 },
      null,
    ],
    ["an unfunded job with a delivered part", { status: "IN_PROGRESS", parts_in_flight: 2 }, null],
    ["a job in REVIEW", { status: "REVIEW", escrow_tx_hash: funded, deadline_at: BEFORE }, null],
    ["a DISPUTED job", { status: "DISPUTED", escrow_tx_hash: funded, deadline_at: BEFORE }, null],
    ["a COMPLETED job", { status: "COMPLETED", escrow_tx_hash: funded }, null],
    ["a CANCELLED job", { status: "CANCELLED" }, null],
  ])("%s: %s", (_what, over, expected) => {
    expect(cancellationGround(job(over), NOW)).toBe(expected);
  });
});

describe("isClosedToEdits and editRightsOf", () => {
  type Editable = Parameters<typeof isClosedToEdits>[0];
  const editable = (over: Partial<Editable>): Editable => ({
    status: "OPEN",
    participation_mode: "BID",
    release_tx_hash: null,
    ...over,
  });
  it.each<[string, Partial<Editable>, boolean, { edit: boolean; shortenHold: boolean }]>([
    ["an OPEN job", {}, false, { edit: true, shortenHold: true }],
    ["an assigned job", { status: "IN_PROGRESS" }, false, { edit: false, shortenHold: true }],
    ["a job in REVIEW", { status: "REVIEW" }, false, { edit: false, shortenHold: true }],
    ["a DISPUTED job", { status: "DISPUTED" }, false, { edit: false, shortenHold: true }],
    ["a COMPLETED job", { status: "COMPLETED" }, true, { edit: false, shortenHold: false }],
    ["a CANCELLED job", { status: "CANCELLED" }, true, { edit: false, shortenHold: false }],
    [
      "a released job not yet COMPLETED",
      { status: "REVIEW", release_tx_hash: "0xrel" },
      true,
      { edit: false, shortenHold: false },
    ],
    [
      "a forum reward slot, even OPEN",
      { participation_mode: "AUTOMATIC_FORUM_REWARD" },
      true,
      { edit: false, shortenHold: false },
    ],
    ["an OPEN bounty", { participation_mode: "BOUNTY" }, false, { edit: true, shortenHold: true }],
  ])("%s: closed %s", (_what, over, closed, rights) => {
    expect(isClosedToEdits(editable(over))).toBe(closed);
    expect(editRightsOf(editable(over))).toEqual(rights);
  });
});

describe("mayLengthenProofHold", () => {
  it.each([
    ["OPEN", 0, true],
    ["OPEN", 1, false],
    ["IN_PROGRESS", 0, false],
    ["REVIEW", 0, false],
    ["COMPLETED", 0, false],
  ] as const)("a %s job with %i bids: %s", (status, bids, expected) => {
    expect(mayLengthenProofHold({ status, bid_count: bids })).toBe(expected);
  });
});
