import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { RouteDef } from "@/lib/api/contract";
import { routes } from "@/lib/api/routes";
import { ERROR_CATALOGUE, ERROR_CODES, statusesOf, type ErrorCode } from "@/lib/api/schemas/errors";
import { DomainError, domainStatusOf, fail } from "../errors";
import { HttpError, badRequest, conflict, forbidden } from "./errors";

// The error catalogue is closed: every code the service throws is in it under the status it is
// thrown with, every route declares only catalogue codes, and every code that is not the
// router's own is declared by at least one route (so the client and /v1/openapi.json know it).

const SERVICE_DIR = join(process.cwd(), "lib/service");
const HELPER_STATUS: Record<string, number | null> = {
  // Domain code: the code is the first argument, the router derives the status from it.
  fail: null,
  conflict: 409,
  forbidden: 403,
  badRequest: 400,
  unauthorized: 401,
  notFound: 404,
  tooManyRequests: 429,
  // Functions that pass a code on to HttpError (typed CodeWithStatus<400>).
  refuseOwnUrl: 400,
  "new HttpError": null,
};
const HELPER_DEFAULT: Record<string, ErrorCode> = {
  forbidden: "FORBIDDEN",
  badRequest: "VALIDATION_FAILED",
  unauthorized: "UNAUTHENTICATED",
  notFound: "NOT_FOUND",
  tooManyRequests: "RATE_LIMITED",
};

/** Codes in the catalogue ahead of the route that will declare them (none now: the operator routes declare NOT_OPERATOR). */
const NOT_ON_A_ROUTE_YET: ErrorCode[] = [];

function serviceSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return serviceSources(path);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : [];
  });
}

/** The text of a call's arguments, from after its "(" to the matching ")", skipping strings. */
function argumentsOf(source: string, start: number): string {
  let depth = 1;
  let i = start;
  while (depth > 0 && i < source.length) {
    const c = source[i]!;
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (c === '"' || c === "'" || c === "`") {
      for (i++; i < source.length && source[i] !== c; i++) if (source[i] === "\\") i++;
    }
    i++;
  }
  return source.slice(start, i - 1);
}

/** Every error the service's source throws with a literal code: where, which code, which status. */
function thrownCodes() {
  const found: Array<{ where: string; code: string; status: number | null }> = [];
  for (const file of serviceSources(SERVICE_DIR)) {
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(new RegExp(`\\b(${Object.keys(HELPER_STATUS).join("|")})\\(`, "g"))) {
      const helper = match[1]!;
      // A file's own function named fail (proofs/safe-fetch.ts has one) is not the domain error's.
      if (helper === "fail" && !/import \{[^}]*\bfail\b[^}]*\} from "[^"]*\berrors"/.test(source)) continue;
      const args = argumentsOf(source, match.index! + match[0].length);
      // The helpers' own definitions in errors.ts are not uses.
      if (/^\s*(messages|message|code|what|retryAfterSeconds|readonly|config)\b/.test(args)) continue;
      // notFound and tooManyRequests have one code; the others take it as a whole argument.
      const fixed = helper === "notFound" || helper === "tooManyRequests";
      const literal =
        helper === "fail"
          ? /^\s*["`]([A-Z][A-Z0-9_]{3,})["`]\s*,/.exec(args)?.[1]
          : fixed
            ? undefined
            : /["`]([A-Z][A-Z0-9_]{3,})["`]\s*(?:,|$)/.exec(args)?.[1];
      // A code built from a check's result (`DEPOSIT_${…}`) is checked by the type of the argument.
      if (!literal && /["`][A-Z][A-Z0-9_]*_\$\{/.test(args)) continue;
      const code = literal ?? HELPER_DEFAULT[helper];
      if (!code) continue;
      const status = HELPER_STATUS[helper] ?? (Number(/^\s*(\d{3})/.exec(args)?.[1]) || null);
      found.push({ where: `${relative(process.cwd(), file)}: ${helper}(${args.slice(0, 60)}…)`, code, status });
    }
  }
  return found;
}

describe("the error catalogue (ERROR_CATALOGUE, lib/api/schemas/errors.ts)", () => {
  const declared = (Object.entries(routes) as Array<[string, RouteDef]>).flatMap(([name, route]) =>
    (route.errors ?? []).map((e) => ({ name, ...e })),
  );

  it("every error a route declares is a catalogue code, under one of that code's statuses", () => {
    expect(declared.length).toBeGreaterThan(50);
    for (const e of declared) {
      expect(ERROR_CODES, `${e.name} declares ${e.code}`).toContain(e.code);
      expect(statusesOf(e.code), `${e.name} declares ${e.code} with ${e.status}`).toContain(e.status);
    }
  });

  it("every code the service throws is in the catalogue under the status it is thrown with", () => {
    const thrown = thrownCodes();
    expect(thrown.length).toBeGreaterThan(100);
    for (const t of thrown) {
      expect(ERROR_CODES, t.where).toContain(t.code);
      if (t.status !== null) expect(statusesOf(t.code as ErrorCode), t.where).toContain(t.status);
    }
  });

  it("every code but the router's own is declared by at least one route, and thrown somewhere", () => {
    const declaredCodes = new Set(declared.map((e) => e.code));
    const thrown = new Set(thrownCodes().map((t) => t.code));
    for (const code of ERROR_CODES) {
      if ("router" in ERROR_CATALOGUE[code]) continue;
      // A code whose helper no route calls yet: once a route declares it, it leaves this list.
      if (NOT_ON_A_ROUTE_YET.includes(code)) {
        expect(declaredCodes.has(code), `${code} is declared now: take it out of NOT_ON_A_ROUTE_YET`).toBe(false);
        continue;
      }
      expect(declaredCodes.has(code), `no route declares ${code}`).toBe(true);
      // Codes built from a chain check's result (DEPOSIT_*, PAYMENT_*) are thrown through a template.
      if (!/^(DEPOSIT|PAYMENT)_/.test(code) || code === "PAYMENT_REQUIRED" || code === "PAYMENT_ALREADY_USED") {
        expect(
          thrown.has(code),
          `${code} is in the catalogue but nothing throws it (or the function passing it to HttpError is missing from HELPER_STATUS)`,
        ).toBe(true);
      }
    }
  });

  it("fail takes only catalogue codes with their extras (tsc), and the status comes from the catalogue", () => {
    // @ts-expect-error: not a catalogue code
    expect(fail("NOT_A_CODE", "x").code).toBe("NOT_A_CODE");
    // @ts-expect-error: AGENT_AT_CAPACITY's extras are maxActiveJobs and activeJobs
    expect(fail("AGENT_AT_CAPACITY", "x", { existingBidId: "b" }).extra).toEqual({ existingBidId: "b" });
    const full = fail("AGENT_AT_CAPACITY", "full", { maxActiveJobs: 1, activeJobs: 1 });
    expect(full).toBeInstanceOf(DomainError);
    expect("status" in full).toBe(false);
    expect(domainStatusOf(full.code)).toBe(409);
    expect(full.toBody(409)).toEqual({
      statusCode: 409,
      error: "Conflict",
      message: "full",
      code: "AGENT_AT_CAPACITY",
      maxActiveJobs: 1,
      activeJobs: 1,
    });
    // A code with several statuses answers the one its route declares, else its first.
    expect(domainStatusOf("CLAIM_EXPIRED", routes.claimAgent.errors)).toBe(410);
    expect(domainStatusOf("CLAIM_EXPIRED", routes.submitDeliverable.errors)).toBe(409);
    expect(domainStatusOf("PROOF_CHECK_FAILED", routes.submitDeliverable.errors)).toBe(422);
    expect(domainStatusOf("PROOF_CHECK_FAILED", routes.approveJob.errors)).toBe(409);
    expect(domainStatusOf("NOT_CLAIMED", routes.getPayout.errors)).toBe(403);
    expect(domainStatusOf("NOT_CLAIMED", routes.releaseJobClaim.errors)).toBe(409);
    expect(domainStatusOf("NOT_CLAIMED")).toBe(403);
    expect(domainStatusOf("KEY_REVOKED", routes.rotateAgentKey.errors)).toBe(409);
  });

  it("domain code throws fail, never the status-named helpers (scripts/codemods/domain-errors.ts rewrites them)", () => {
    const router = /^lib\/service\/(router\.ts|errors\.ts|http\/|auth\/actor\.ts|testing\/)/;
    const offenders = serviceSources(SERVICE_DIR)
      .map((file) => relative(process.cwd(), file))
      .filter((file) => !router.test(file))
      .filter((file) =>
        /\b(badRequest|unauthorized|forbidden|notFound|conflict)\(/.test(
          readFileSync(join(process.cwd(), file), "utf8"),
        ),
      );
    expect(offenders).toEqual([]);
  });

  it("the helpers take only catalogue codes, under their status, with that code's extras (checked by tsc)", () => {
    // @ts-expect-error: not a catalogue code
    expect(conflict("NOT_A_CODE", "x").code).toBe("NOT_A_CODE");
    // @ts-expect-error: AGENT_AT_CAPACITY is a 409, not a 403
    expect(forbidden("x", "AGENT_AT_CAPACITY").status).toBe(403);
    // @ts-expect-error: AGENT_AT_CAPACITY's extras are maxActiveJobs and activeJobs
    expect(conflict("AGENT_AT_CAPACITY", "x", { existingBidId: "b" }).extra).toEqual({ existingBidId: "b" });
    // @ts-expect-error: not a catalogue code
    expect(new HttpError(400, "x", "SOMETHING_ELSE").code).toBe("SOMETHING_ELSE");
    expect(badRequest("x").toBody()).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: "x",
      messages: ["x"],
      code: "VALIDATION_FAILED",
    });
    expect(badRequest(["a", "b"]).toBody()).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: "a; b",
      messages: ["a", "b"],
      code: "VALIDATION_FAILED",
    });
    expect(conflict("AGENT_AT_CAPACITY", "full", { maxActiveJobs: 1, activeJobs: 1 }).toBody()).toMatchObject({
      code: "AGENT_AT_CAPACITY",
      maxActiveJobs: 1,
      activeJobs: 1,
    });
  });
});
