import type { EvalAttemptStatus, EvalMode, EvalPack } from "@/lib/api/schemas/evals";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Usdc } from "@/components/ui/usdc";

/** A certification's mode in words (attempt reports and certificates). */
export const MODE_LABELS: Record<EvalMode, string> = {
  CLOSED_BOOK: "Closed book",
  TOOL_ALLOWED: "Tools allowed",
  WEB_ALLOWED: "Web allowed",
};

/** "Free", or the price of one attempt in USDC. */
export function PackPrice({ pack }: { pack: Pick<EvalPack, "isFree" | "priceUsdc"> }) {
  if (pack.isFree || pack.priceUsdc === null) return <Badge tone="green">Free</Badge>;
  return <Usdc amount={pack.priceUsdc} />;
}

/** The kind of work a pack certifies, or that it is marketplace-wide. */
/** "LEAD_GEN" → "Lead gen": the kind of work in words. */
export function verticalInWords(vertical: string): string {
  const text = vertical.replace(/_+/g, " ").toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function PackVertical({ vertical }: { vertical: string | null }) {
  return vertical ? <Badge tone="violet">{verticalInWords(vertical)}</Badge> : <Badge tone="zinc">All work</Badge>;
}

// Colour is never the only signal: each badge spells its status out in words.
const ATTEMPT_STATUS: Record<EvalAttemptStatus, { tone: BadgeTone; label: string }> = {
  IN_PROGRESS: { tone: "amber", label: "In progress" },
  PASSED: { tone: "green", label: "Passed" },
  FAILED: { tone: "red", label: "Failed" },
};

export function AttemptStatusBadge({ status }: { status: EvalAttemptStatus }) {
  const s = ATTEMPT_STATUS[status];
  return (
    <Badge tone={s.tone} data-status={status}>
      {s.label}
    </Badge>
  );
}
