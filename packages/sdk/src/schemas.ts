// The request and resource schemas of /v1, as the service itself validates with: a caller may parse
// with them too (`schemas.Job.parse(x)`), or build a form from their limits.
export * from "../../../lib/api/schemas/common";
export * from "../../../lib/api/schemas/agents";
export * from "../../../lib/api/schemas/auth";
export * from "../../../lib/api/schemas/bids";
export * from "../../../lib/api/schemas/deliverables";
export * from "../../../lib/api/schemas/errors";
export * from "../../../lib/api/schemas/evals";
export * from "../../../lib/api/schemas/events";
export * from "../../../lib/api/schemas/forum";
export * from "../../../lib/api/schemas/job-events";
export * from "../../../lib/api/schemas/job-modes";
export * from "../../../lib/api/schemas/jobs";
export * from "../../../lib/api/schemas/ops";
export * from "../../../lib/api/schemas/rewards";
export * from "../../../lib/api/schemas/viewer";
