import { fail } from "../errors";
import { sql } from "kysely";
import type { z } from "zod";
import type { CriterionCheck } from "@/lib/api/schemas/jobs";
import type { CriterionResult } from "@/lib/api/schemas/job-modes";
import type { ServiceContext } from "../context";
import type { CriterionStatus, JobCriteriaResultsTable, JobRow } from "../db/schema";
import type { Selectable } from "kysely";
import { serviceFetchPolicy } from "../proofs/fetch-policy";
import { safeFetch, type SafeFetchOptions, type SafeFetchResult } from "../proofs/safe-fetch";

/**
 * Acceptance criteria with checks. Each criterion of a job is {id, check, description}:
 * - http_status: a GET of `check.url` (else of the deliverable URL), through the SSRF-safe fetcher,
 *   must answer `check.equals` (redirects are followed; the final status counts). A refused URL or
 *   a network failure is a FAIL with the reason: an inconclusive check is not proof.
 * - manual: PASS once the poster ticks it (PUT /v1/jobs/:id/criteria/:criterionId), PENDING before.
 * - reward: PASS when the job's forum reward was paid. Forum rewards are not paid by this service
 *   yet, so it stays PENDING with a detail saying so (rewardCheck below is the hook).
 * The poster may override any criterion (OVERRIDDEN). Approval is blocked while a machine check
 * (http_status, or a reward check that FAILs) is neither PASS nor OVERRIDDEN; manual ticks are the
 * poster's own checklist and never block the poster's approval.
 */

export type CriterionCheckSpec = z.infer<typeof CriterionCheck>;
export interface JobCriterion {
  id: string;
  check: CriterionCheckSpec;
  description: string;
}
type CheckStatus = Exclude<CriterionStatus, "OVERRIDDEN">;
type ResultRow = Selectable<JobCriteriaResultsTable>;

/** Test seam: tests answer DNS for made-up names or shorten timeouts; production leaves it empty. */
/**
 * The status a stored criterion result takes when a new check result is upserted: a poster's
 * override stored meanwhile (or before) still wins over any check or tick.
 */
export const statusKeepingOverride = sql<CriterionStatus>`case when job_criteria_results.overridden_by is not null then 'OVERRIDDEN' else excluded.check_status end`;

export const criteriaFetchOptions: Pick<SafeFetchOptions, "resolve" | "timeoutMs" | "dial"> = {};
const CHECK_TIMEOUT_MS = 10_000;

export interface CriterionEvaluation {
  id: string;
  status: CriterionStatus;
  checkStatus: CheckStatus;
  detail: string;
  checkedUrl: string | null;
  httpStatus: number | null;
}

export interface EvaluateCriteriaOptions {
  /** The deliverable URL for http_status checks without their own url; default the job's outputData.url. */
  deliverableUrl?: string | null;
  /**
   * Manual ticks by criterion id; default the poster's stored ticks. When given, they are stored as
   * the ticks (a caller that passes them speaks for the poster).
   */
  manualTicks?: Record<string, boolean>;
  /** Overridden criterion ids; default the stored overrides. Used for the returned statuses only: overrides are stored by the override route. */
  overrides?: Record<string, boolean>;
  /** Store the results in job_criteria_results (default true). */
  persist?: boolean;
}

export function criteriaOf(job: Pick<JobRow, "acceptance_criteria">): JobCriterion[] {
  return (job.acceptance_criteria as JobCriterion[] | null) ?? [];
}

/** The reward hook: null while forum rewards are not paid by this service (then PENDING). */
async function rewardCheck(_ctx: ServiceContext, _jobId: string): Promise<{ status: CheckStatus; detail: string }> {
  return {
    status: "PENDING",
    detail:
      "met when a forum reward for this job is paid; forum reward payouts are not available on this service yet, so this stays pending",
  };
}

function describeFetch(
  url: string,
  equals: number,
  result: SafeFetchResult,
): { status: CheckStatus; detail: string; httpStatus: number | null } {
  if (result.ok) {
    return result.status === equals
      ? { status: "PASS", detail: `GET ${url} answered ${result.status} as required`, httpStatus: result.status }
      : {
          status: "FAIL",
          detail: `GET ${url} answered ${result.status}; the criterion requires ${equals}`,
          httpStatus: result.status,
        };
  }
  if (result.kind === "BLOCKED") {
    return { status: "FAIL", detail: `GET ${url} was refused by the fetch policy: ${result.reason}`, httpStatus: null };
  }
  return {
    status: "FAIL",
    detail: `GET ${url} got no answer (${result.reason}); an inconclusive check is not proof: evaluate again, or the poster may override`,
    httpStatus: null,
  };
}

/**
 * Evaluates every criterion of the job and (by default) stores the results. The deliverables
 * domain calls it at submission (with the submitted URL) and at approval, then asks
 * criteriaBlockApproval.
 */
export async function evaluateCriteria(
  ctx: ServiceContext,
  job: Pick<JobRow, "id" | "acceptance_criteria" | "output_data">,
  options: EvaluateCriteriaOptions = {},
): Promise<CriterionEvaluation[]> {
  const criteria = criteriaOf(job);
  const stored = new Map(
    (await ctx.db.selectFrom("job_criteria_results").selectAll().where("job_id", "=", job.id).execute()).map((r) => [
      r.criterion_id,
      r,
    ]),
  );
  const deliverableUrl =
    options.deliverableUrl !== undefined
      ? options.deliverableUrl
      : ((job.output_data as { url?: string } | null)?.url ?? null);

  // One GET per distinct URL, in parallel.
  const fetches = new Map<string, Promise<SafeFetchResult>>();
  const fetchOnce = (url: string) => {
    let pending = fetches.get(url);
    if (!pending) {
      // The service's fetch policy: loopback only on the local chain, never this app itself.
      pending = safeFetch(url, {
        timeoutMs: CHECK_TIMEOUT_MS,
        ...criteriaFetchOptions,
        ...serviceFetchPolicy(ctx.config),
      });
      fetches.set(url, pending);
    }
    return pending;
  };

  const now = ctx.now();
  const evaluations = await Promise.all(
    criteria.map(async (criterion): Promise<CriterionEvaluation> => {
      const row = stored.get(criterion.id);
      const overridden = options.overrides ? Boolean(options.overrides[criterion.id]) : Boolean(row?.overridden_by);
      let checkStatus: CheckStatus;
      let detail: string;
      let checkedUrl: string | null = null;
      let httpStatus: number | null = null;
      const check = criterion.check ?? { type: "manual" };
      if (check.type === "http_status") {
        const url = check.url ?? deliverableUrl;
        if (!url) {
          checkStatus = "PENDING";
          detail = "no deliverable URL yet: this check runs once the agent submits one";
        } else {
          checkedUrl = url;
          const outcome = describeFetch(url, check.equals, await fetchOnce(url));
          checkStatus = outcome.status;
          detail = outcome.detail;
          httpStatus = outcome.httpStatus;
        }
      } else if (check.type === "manual") {
        const ticked =
          options.manualTicks && criterion.id in options.manualTicks
            ? Boolean(options.manualTicks[criterion.id])
            : Boolean(row?.ticked);
        checkStatus = ticked ? "PASS" : "PENDING";
        detail = ticked ? "ticked by the poster" : "waiting for the poster's tick";
      } else {
        ({ status: checkStatus, detail } = await rewardCheck(ctx, job.id));
      }
      return {
        id: criterion.id,
        status: overridden ? "OVERRIDDEN" : checkStatus,
        checkStatus,
        detail,
        checkedUrl,
        httpStatus,
      };
    }),
  );

  if (options.persist ?? true) {
    for (const evaluation of evaluations) {
      const criterion = criteria.find((c) => c.id === evaluation.id)!;
      const isManual = (criterion.check?.type ?? "manual") === "manual";
      // Manual results belong to the tick route unless the caller passed ticks for them.
      if (isManual && !(options.manualTicks && criterion.id in options.manualTicks)) continue;
      const ticks = isManual ? { ticked: evaluation.checkStatus === "PASS" } : {};
      await ctx.db
        .insertInto("job_criteria_results")
        .values({
          job_id: job.id,
          criterion_id: evaluation.id,
          status: evaluation.checkStatus,
          check_status: evaluation.checkStatus,
          detail: evaluation.detail,
          checked_url: evaluation.checkedUrl,
          http_status: evaluation.httpStatus,
          evaluated_at: now,
          ...ticks,
          updated_at: now,
        })
        .onConflict((oc) =>
          oc.columns(["job_id", "criterion_id"]).doUpdateSet((eb) => ({
            check_status: eb.ref("excluded.check_status"),
            status: statusKeepingOverride,
            detail: eb.ref("excluded.detail"),
            checked_url: eb.ref("excluded.checked_url"),
            http_status: eb.ref("excluded.http_status"),
            evaluated_at: eb.ref("excluded.evaluated_at"),
            ...(isManual ? { ticked: eb.ref("excluded.ticked") } : {}),
            updated_at: eb.ref("excluded.updated_at"),
          })),
        )
        .execute();
    }
  }
  return evaluations;
}

/** Loads the job, then evaluateCriteria. */
export async function evaluateJobCriteria(ctx: ServiceContext, jobId: string, options: EvaluateCriteriaOptions = {}) {
  const job = await ctx.db
    .selectFrom("jobs")
    .select(["id", "acceptance_criteria", "output_data"])
    .where("id", "=", jobId)
    .executeTakeFirst();
  if (!job) throw fail("NOT_FOUND", "job not found");
  return evaluateCriteria(ctx, job, options);
}

/** The stored result of each criterion, with the defaults of one never evaluated. */
export function presentCriteria(criteria: JobCriterion[], rows: ResultRow[]): CriterionResult[] {
  const byId = new Map(rows.map((r) => [r.criterion_id, r]));
  return criteria.map((criterion) => {
    const row = byId.get(criterion.id);
    const check = criterion.check ?? { type: "manual" as const };
    const fallbackDetail =
      check.type === "manual"
        ? "waiting for the poster's tick"
        : check.type === "reward"
          ? "not evaluated yet"
          : "not evaluated yet: checked at submission and at approval";
    const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
    return {
      id: criterion.id,
      description: criterion.description,
      check,
      status: row?.status ?? "PENDING",
      checkStatus: row?.check_status ?? "PENDING",
      detail: row?.detail ?? fallbackDetail,
      checkedUrl: row?.checked_url ?? null,
      httpStatus: row?.http_status ?? null,
      evaluatedAt: iso(row?.evaluated_at),
      ticked: row?.ticked ?? false,
      tickedBy: row?.ticked_by ?? null,
      tickedAt: iso(row?.ticked_at),
      overridden: Boolean(row?.overridden_by),
      overriddenBy: row?.overridden_by ?? null,
      overrideReason: row?.override_reason ?? null,
      overriddenAt: iso(row?.overridden_at),
    };
  });
}

/** Which presented criteria block approval: machine checks that are neither PASS nor OVERRIDDEN (a pending reward check does not). */
export function blockingCriteria(results: CriterionResult[]): CriterionResult[] {
  return results.filter((r) => {
    if (r.status === "PASS" || r.status === "OVERRIDDEN") return false;
    if (r.check.type === "http_status") return true;
    if (r.check.type === "reward") return r.status === "FAIL";
    return false;
  });
}

export interface ApprovalGate {
  blocked: boolean;
  failing: Array<{ id: string; description: string; status: CriterionStatus; detail: string | null }>;
}

/**
 * For the approval path: blocked when a machine check of the job's stored results is not met and
 * not overridden (run evaluateCriteria first for fresh results). Refuse approval with
 * 409 CRITERIA_NOT_MET and `failing` in the body when blocked.
 */
export async function criteriaBlockApproval(ctx: ServiceContext, jobId: string): Promise<ApprovalGate> {
  const job = await ctx.db
    .selectFrom("jobs")
    .select(["id", "acceptance_criteria"])
    .where("id", "=", jobId)
    .executeTakeFirst();
  if (!job) throw fail("NOT_FOUND", "job not found");
  const rows = await ctx.db.selectFrom("job_criteria_results").selectAll().where("job_id", "=", jobId).execute();
  const failing = blockingCriteria(presentCriteria(criteriaOf(job), rows)).map((r) => ({
    id: r.id,
    description: r.description,
    status: r.status,
    detail: r.detail,
  }));
  return { blocked: failing.length > 0, failing };
}
