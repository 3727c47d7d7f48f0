import { describe, expect, it } from "vitest";
import {
  clientAddress,
  dashboardClientKey,
  parseTrustProxy,
  resolveClient,
  signDashboardClient,
  verifyDashboardClient,
} from "./client-address.mjs";

// The one rule scripts/server.mjs and the test harness apply to the raw request.

const off = parseTrustProxy(undefined);
const oneHop = parseTrustProxy("1");

describe("the client's address", () => {
  it("without TRUST_PROXY is the socket's peer: X-Forwarded-For is ignored, from loopback too", () => {
    for (const value of [undefined, "", "0", "false", "no"]) expect(parseTrustProxy(value)).toEqual({ kind: "off" });
    expect(clientAddress("127.0.0.1", "198.51.100.7", off)).toBe("127.0.0.1");
    expect(clientAddress("::ffff:127.0.0.1", "198.51.100.7", off)).toBe("127.0.0.1");
    expect(clientAddress("203.0.113.9", "127.0.0.1", off)).toBe("203.0.113.9");
  });

  it("with TRUST_PROXY=1 is the right-most X-Forwarded-For entry: what the one proxy saw, not what the client wrote", () => {
    expect(parseTrustProxy("true")).toEqual({ kind: "hops", hops: 1 });
    expect(clientAddress("127.0.0.1", "127.0.0.1, 198.51.100.7", oneHop)).toBe("198.51.100.7");
    expect(clientAddress("127.0.0.1", "198.51.100.7", oneHop)).toBe("198.51.100.7");
    expect(clientAddress("127.0.0.1", undefined, oneHop)).toBe("127.0.0.1");
  });

  it("with a number of hops skips that many trusted hops from the right", () => {
    const two = parseTrustProxy("2");
    expect(clientAddress("10.0.0.2", "1.2.3.4, 198.51.100.7, 10.0.0.1", two)).toBe("198.51.100.7");
    expect(clientAddress("10.0.0.2", "10.0.0.1", two)).toBe("10.0.0.1");
  });

  it("with a list of proxies takes the right-most hop that is not one of them", () => {
    const list = parseTrustProxy("loopback, 10.0.0.0/8");
    expect(clientAddress("127.0.0.1", "6.6.6.6, 198.51.100.7, 10.1.2.3", list)).toBe("198.51.100.7");
    expect(clientAddress("::1", "198.51.100.7", list)).toBe("198.51.100.7");
    // A peer that is not a listed proxy is the client, whatever it forwards.
    expect(clientAddress("203.0.113.9", "127.0.0.1", list)).toBe("203.0.113.9");
    expect(clientAddress("127.0.0.1", "10.0.0.5, 10.0.0.6", list)).toBe("10.0.0.5");
  });

  it("stops at the hop that reported an entry that is not an address", () => {
    expect(clientAddress("127.0.0.1", "198.51.100.7, not-an-ip", parseTrustProxy("2"))).toBe("127.0.0.1");
  });

  it("refuses a TRUST_PROXY it cannot read", () => {
    expect(() => parseTrustProxy("everything")).toThrow(/TRUST_PROXY/);
    expect(() => parseTrustProxy("10.0.0.0/99")).toThrow(/TRUST_PROXY/);
  });
});

describe("the dashboard's signed client header", () => {
  const key = dashboardClientKey("s".repeat(40));
  const now = 1_800_000_000_000;

  it("speaks for the browser when it verifies, and carries its proxy verdict", () => {
    const headers = { "x-awm-dashboard-client": signDashboardClient(key, "198.51.100.7", false, now) };
    expect(resolveClient({ peer: "127.0.0.1", headers, trust: off, dashboardKey: key, now })).toEqual({
      clientIp: "198.51.100.7",
      forwarded: false,
    });
    const proxied = { "x-awm-dashboard-client": signDashboardClient(key, "198.51.100.7", true, now) };
    expect(resolveClient({ peer: "127.0.0.1", headers: proxied, trust: off, dashboardKey: key, now }).forwarded).toBe(
      true,
    );
  });

  it("is refused when forged, altered, signed with another key or stale", () => {
    const genuine = signDashboardClient(key, "198.51.100.7", false, now);
    const [, , at, signature] = genuine.split(" ");
    const forgeries = [
      `203.0.113.66 0 ${at} ${signature}`, // another address under a real signature
      genuine.replace("198.51.100.7 0 ", "198.51.100.7 1 "), // the proxy verdict flipped
      signDashboardClient(dashboardClientKey("t".repeat(40)), "203.0.113.66", false, now), // another secret
      `203.0.113.66 0 ${now} ${"A".repeat(43)}`,
      "203.0.113.66",
    ];
    for (const value of forgeries) {
      expect(verifyDashboardClient(key, value, now)).toBeNull();
      expect(
        resolveClient({
          peer: "127.0.0.1",
          headers: { "x-awm-dashboard-client": value },
          trust: off,
          dashboardKey: key,
          now,
        }),
      ).toEqual({ clientIp: "127.0.0.1", forwarded: false });
    }
    expect(verifyDashboardClient(key, genuine, now + 10 * 60_000)).toBeNull();
    expect(verifyDashboardClient(null, genuine, now)).toBeNull();
  });
});

describe("the proxy verdict", () => {
  it("is true for a request carrying X-Forwarded-For, Forwarded or X-Real-IP, with or without TRUST_PROXY", () => {
    for (const trust of [off, oneHop]) {
      expect(resolveClient({ peer: "127.0.0.1", headers: {}, trust }).forwarded).toBe(false);
      expect(
        resolveClient({ peer: "127.0.0.1", headers: { "x-forwarded-for": "127.0.0.1, 198.51.100.7" }, trust })
          .forwarded,
      ).toBe(true);
      expect(resolveClient({ peer: "127.0.0.1", headers: { forwarded: "for=198.51.100.7" }, trust }).forwarded).toBe(
        true,
      );
      expect(
        resolveClient({ peer: "127.0.0.1", headers: new Headers({ "x-real-ip": "198.51.100.7" }), trust }).forwarded,
      ).toBe(true);
    }
  });
});
