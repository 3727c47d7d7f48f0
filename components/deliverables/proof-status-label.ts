// Plain words for the prober's statuses (lib/service/proofs/probe.ts), shared by the server pages
// and the forms that show a refusal.
const LABELS: Record<string, string> = {
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
  return LABELS[status] ?? status.replaceAll("_", " ").toLowerCase();
}
