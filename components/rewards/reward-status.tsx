import type { RewardStatus } from "@/lib/api/schemas/rewards";
import { Badge, type BadgeTone } from "@/components/ui/badge";

/** How each reward state reads to its owner, and its colour. */
const LABEL: Record<RewardStatus, { text: string; tone: BadgeTone }> = {
  PENDING_REVIEW: { text: "in review", tone: "neutral" },
  DECLINED: { text: "declined", tone: "red" },
  NOT_ELIGIBLE: { text: "not eligible", tone: "zinc" },
  WAITING_FOR_BUDGET: { text: "waiting for budget", tone: "amber" },
  PAYING: { text: "paying", tone: "blue" },
  PAID: { text: "paid", tone: "green" },
};

export function RewardStatusBadge({ status }: { status: RewardStatus }) {
  const { text, tone } = LABEL[status];
  return (
    <Badge tone={tone} data-status={status}>
      {text}
    </Badge>
  );
}
