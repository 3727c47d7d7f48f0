import type { EventType } from "@/lib/api/schemas/events";

/** What the fan-out knows of an event when it writes the sentence. */
export interface EventForText {
  type: string;
  jobId: string | null;
  jobTitle: string | null;
  data: Record<string, unknown>;
}

const str = (value: unknown): string | null =>
  typeof value === "string" && value.length > 0 ? value : typeof value === "number" ? String(value) : null;
const quoted = (title: string | null) =>
  title ? `“${title.length > 80 ? `${title.slice(0, 79)}…` : title}”` : "your job";
/** "40.500000" → "40.5": amounts as people write them. */
const tidy = (amount: string) => (/^\d+\.\d+$/.test(amount) ? amount.replace(/0+$/, "").replace(/\.$/, "") : amount);
const usdc = (value: unknown) => (str(value) ? ` of ${tidy(str(value)!)} USDC` : "");
/** An approval of work whose agent has no payout wallet: where the money is, and what releases it. */
const WAITS_FOR_WALLET = (d: Record<string, unknown>) =>
  d.payoutWalletMissing === true
    ? " The payment waits in escrow until the agent has a payout wallet: its owner sets one on the agent's page."
    : "";

/**
 * The one sentence and the dashboard path of each event type that reaches an inbox (and its mail
 * subject). Written from what the event carries plus the job's title; never private text (a
 * deliverable, a message's body): the reader opens the link for that, where the page checks access.
 */
export function describeEvent(event: EventForText): { text: string; link: string | null } {
  const job = quoted(event.jobTitle);
  const jobLink = event.jobId ? `/jobs/${event.jobId}` : null;
  const d = event.data;
  const texts: Partial<Record<EventType, () => { text: string; link: string | null }>> = {
    "bid.created": () => ({
      text: `New bid${usdc(d.proposedUsdc)} on ${job}${str(d.agentName) ? ` from ${str(d.agentName)}` : ""}.`,
      link: jobLink,
    }),
    "bid.accepted": () => ({ text: `Your agent's bid on ${job} was accepted.`, link: jobLink }),
    "bid.rejected": () => ({ text: `Your agent's bid on ${job} was rejected.`, link: jobLink }),
    "bid.wallet_requested": () => ({
      text: `The poster of ${job} wants to accept ${str(d.agentName) ?? "your agent"}'s bid, but it has no payout wallet: set one on the agent's page.`,
      link: str(d.agentId) ? `/agents/${str(d.agentId)}` : jobLink,
    }),
    "bid.wallet_set": () => ({
      text: `${str(d.agentName) ?? "The agent"} set a payout wallet: you can accept its bid on ${job} now.`,
      link: jobLink,
    }),
    "job.assigned": () => ({ text: `${job} was assigned to your agent.`, link: jobLink }),
    "job.submitted": () => ({ text: `A deliverable was submitted on ${job}: review it.`, link: jobLink }),
    "proof.failed": () => ({
      text: `A proof check of the deliverable on ${job} failed${str(d.reason) ? `: ${str(d.reason)}` : ""}.`,
      link: jobLink,
    }),
    "job.changes_requested": () => ({
      text: `${str(d.position) ? `Changes were asked for on part ${str(d.position)} of ${job}` : `Changes were asked for on ${job}`}${str(d.round) && str(d.maxRevisions) ? ` (round ${str(d.round)} of ${str(d.maxRevisions)})` : ""}: read the request and resubmit.`,
      link: jobLink,
    }),
    "job.approved": () => ({ text: `The work on ${job} was approved.${WAITS_FOR_WALLET(d)}`, link: jobLink }),
    "job.paid": () => ({ text: `Payment${usdc(d.netUsdc ?? d.amountUsdc)} released for ${job}.`, link: jobLink }),
    "job.disputed": () => ({ text: `A dispute was opened on ${job}.`, link: jobLink }),
    "dispute.statement": () => ({ text: `New statement in the dispute on ${job}.`, link: jobLink }),
    "dispute.escalated": () => ({ text: `The dispute on ${job} went to the operator.`, link: jobLink }),
    "dispute.resolved": () => ({
      text: `The dispute on ${job} was ruled${str(d.outcome) ? `: ${str(d.outcome)}` : ""}.`,
      link: jobLink,
    }),
    "job.updated": () => ({
      text: `The poster changed ${job}${Array.isArray(d.fields) ? ` (${(d.fields as unknown[]).map(String).join(", ")})` : ""}.`,
      link: jobLink,
    }),
    "milestone.submitted": () => ({
      text: `Part ${str(d.position) ?? ""} of ${job} was delivered: review it.`,
      link: jobLink,
    }),
    "milestone.approved": () => ({
      text: `Part ${str(d.position) ?? ""} of ${job} was approved.${WAITS_FOR_WALLET(d)}`,
      link: jobLink,
    }),
    "milestone.paid": () => ({
      text: `Part ${str(d.position) ?? ""} of ${job} was paid${usdc(d.net)}.`,
      link: jobLink,
    }),
    "milestone.disputed": () => ({ text: `Part ${str(d.position) ?? ""} of ${job} was disputed.`, link: jobLink }),
    "milestone.resolved": () => ({
      text: `The dispute on part ${str(d.position) ?? ""} of ${job} was ruled${str(d.outcome) ? `: ${str(d.outcome)}` : ""}.`,
      link: jobLink,
    }),
    "milestone.refunded": () => ({
      text: `Part ${str(d.position) ?? ""} of ${job} was refunded${usdc(d.amount)}.`,
      link: jobLink,
    }),
    "job.cancelled": () => ({ text: `${job} was cancelled.`, link: jobLink }),
    "job.refunded": () => ({ text: `The escrow of ${job} was refunded${usdc(d.amountUsdc)}.`, link: jobLink }),
    "escrow.deposit_lost": () => ({
      text: `The deposit that funded ${job} is no longer on the chain (a reorganisation removed it): fund the job again.`,
      link: jobLink,
    }),
    "escrow.settlement_reorged": () => ({
      text: `A chain reorganisation removed the payment transaction of ${job}; it is being sent again.`,
      link: jobLink,
    }),
    "escrow.deposit_refunded": () => ({
      text: `A deposit${usdc(d.amount)} that could not fund ${job} went back to its payer${str(d.reason) ? ` (${str(d.reason)})` : ""}.`,
      link: jobLink,
    }),
    "escrow.expiring": () => ({
      text: `The escrow of ${job} expires ${str(d.expiresAt) ? `on ${str(d.expiresAt)!.slice(0, 16).replace("T", " ")} UTC` : "soon"}: from then on anyone may return what it holds to the poster, and unpaid work goes unpaid. The poster can extend it on the job page.`,
      link: jobLink,
    }),
    "job.stalled": () => ({ text: `${job} has had no progress report for too long.`, link: jobLink }),
    "claim.lapsed": () => ({ text: `The claim on ${job} lapsed without a submission.`, link: jobLink }),
    "message.created": () => ({ text: `New message about ${job}.`, link: str(d.link) ?? jobLink }),
    "forum.reply": () => ({
      text: `New reply in “${str(d.threadTitle) ?? "a thread you follow"}”${str(d.authorName) ? ` from ${str(d.authorName)}` : ""}.`,
      link: str(d.threadSlug) ? `/forum/${str(d.threadSlug)}${str(d.replyId) ? `#reply-${str(d.replyId)}` : ""}` : null,
    }),
    "forum.mention": () => ({
      text: `${str(d.authorName) ?? "Someone"} mentioned you in “${str(d.threadTitle) ?? "a forum thread"}”.`,
      link: str(d.threadSlug)
        ? `/forum/${str(d.threadSlug)}${str(d.replyId) ? `?reply=${str(d.replyId)}#reply-${str(d.replyId)}` : ""}`
        : null,
    }),
    "reward.paid": () => ({
      text: `A reward${usdc(d.netUsdc ?? d.amountUsdc)} was paid${str(d.threadTitle) ? ` for “${str(d.threadTitle)}”` : ""}.`,
      link: "/rewards",
    }),
    "saved_search.matched": () => ({
      text: `New job ${job} matches your saved search “${str(d.searchName) ?? "search"}”.`,
      link: jobLink,
    }),
    "eval.certified": () => ({
      text: `Your agent passed the ${str(d.packTitle) ?? "certification"} pack.`,
      link: str(d.agentId) ? `/agents/${str(d.agentId)}` : null,
    }),
    "agent.suspended": () => ({
      text: `The operator suspended your agent${str(d.agentName) ? ` ${str(d.agentName)}` : ""}.`,
      link: str(d.agentId) ? `/agents/${str(d.agentId)}` : null,
    }),
    "agent.restored": () => ({
      text: `The operator restored your agent${str(d.agentName) ? ` ${str(d.agentName)}` : ""}.`,
      link: str(d.agentId) ? `/agents/${str(d.agentId)}` : null,
    }),
    "agent.wallet_changed": () => ({
      text: `The payout wallet of your agent${str(d.agentName) ? ` ${str(d.agentName)}` : ""} was changed from ${str(d.oldAddress) ?? "none"} to ${str(d.newAddress) ?? "none"} by ${d.changedBy === "OWNER" ? "your session" : `its API key ${str(d.keyId) ?? ""}`.trim()}; its next payments go there. If this was not you, revoke the key and set the wallet back.`,
      link: str(d.agentId) ? `/agents/${str(d.agentId)}` : null,
    }),
    "webhook.disabled": () => ({
      text: "A webhook endpoint of your agent was disabled after a day of failed deliveries.",
      link: str(d.agentId) ? `/agents/${str(d.agentId)}` : null,
    }),
  };
  return texts[event.type as EventType]?.() ?? { text: `Update on ${job}.`, link: jobLink };
}
