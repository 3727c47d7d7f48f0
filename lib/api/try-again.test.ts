import { describe, expect, it } from "vitest";
import { tryAgainDigest, tryAgainFromDigest } from "./try-again";

describe("the try-again digest", () => {
  it("carries the service's wait to the error boundary, rounded up to whole seconds", () => {
    expect(tryAgainFromDigest(tryAgainDigest(41.2))).toEqual({ retryAfterSeconds: 42 });
    expect(tryAgainFromDigest(tryAgainDigest(null))).toEqual({ retryAfterSeconds: null });
  });

  it("is not read into Next's own digests nor a plain error's hash", () => {
    expect(tryAgainFromDigest("NEXT_HTTP_ERROR_FALLBACK;404")).toBeNull();
    expect(tryAgainFromDigest("2837465912")).toBeNull();
    expect(tryAgainFromDigest(undefined)).toBeNull();
  });
});
