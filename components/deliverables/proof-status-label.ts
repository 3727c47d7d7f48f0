import type { ProofStatus } from "@/lib/api/schemas/deliverables";

// Plain words for the prober's statuses (PROOF_STATUSES in lib/api/schemas/deliverables.ts), shared
// by the server pages and the forms that show a refusal; a status added there must be labelled here.
const LABELS: Record<ProofStatus, string> = {
  LIVE: "Live",
  INVALID_URL: "Not a usable URL",
  DISALLOWED_HOST: "Host not allowed",
  BLOCKED: "Address refused",
  UNREACHABLE: "Unreachable",
  HTTP_ERROR: "HTTP error",
  LOGIN_REQUIRED: "Login page",
  ERROR_PAGE: "Error page",
  MARKER_MISSING: "Marker missing",
};

export function proofStatusLabel(status: string | null | undefined): string {
  if (!status) return "Not checked yet";
  return LABELS[status as ProofStatus] ?? status.replaceAll("_", " ").toLowerCase();
}
