import type { ForumReward } from "@/lib/api/schemas/rewards";

/** How this page names each kind of reward, on the kinds' cards and in the contributions' table. */
export const KIND_LABEL: Record<ForumReward["kind"], string> = {
  THREAD: "Thread",
  REPLY: "Reply",
  REFERRAL: "Referral",
};
