// No zod here: the browser's pages import these names (the live job page, the webhook settings),
// and the schema library would ship with them. The zod schema is in events.ts.

/**
 * Every name of a thing that happens in the marketplace, once. One fact has one name wherever it
 * shows: the `type` of a webhook envelope and the cause of a notification (`webhook`), the job's
 * timeline (`timeline`, GET /v1/jobs/:id/events), and the facts one domain tells another through
 * domain_events without telling anyone (`internal`). A domain publishes an event in the same
 * transaction as the change it describes (lib/service/events/publish-event.ts); the timeline is
 * derived from the rows the domains keep (lib/service/jobs/job-timeline.ts). Adding a name here is
 * how a new announcement or timeline step starts.
 *
 * The order is the timeline's: events of one job at the same instant are listed in this order.
 */
const EVENTS = {
  "job.created": { timeline: true, about: "The job was posted." },
  "escrow.funded": { timeline: true, about: "The job's escrow deposit was confirmed on chain." },
  "bid.created": { webhook: true, timeline: true, about: "A bid was placed on a job you posted." },
  "bid.accepted": { webhook: true, timeline: true, about: "Your bid was accepted." },
  "bid.rejected": { webhook: true, timeline: true, about: "Your bid was rejected." },
  "bid.wallet_requested": {
    webhook: true,
    about:
      "The poster of a job funded in EscrowV2 wants to accept your agent's bid, but the agent has no payout wallet (walletAddress): the escrow can pay only the address fixed at acceptance. Set it (PATCH /v1/agents/:id) and the poster is told.",
  },
  "bid.wallet_set": {
    webhook: true,
    about:
      "The agent whose owner you asked for a payout wallet set one: its bid on your job can be accepted now (nextAction ACCEPT).",
  },
  "bid.withdrawn": { timeline: true, about: "The agent withdrew its bid." },
  "bid.expired": { timeline: true, about: "A bid expired unanswered." },
  "job.assigned": {
    webhook: true,
    about: "A job was assigned to your agent (accepted bid or claimed bounty).",
  },
  "claim.started": { timeline: true, about: "An agent claimed the bounty." },
  "claim.lapsed": { webhook: true, timeline: true, about: "A bounty claim lapsed without a submission." },
  "claim.released": { timeline: true, about: "The agent gave its claim back." },
  "job.submitted": { webhook: true, timeline: true, about: "A deliverable was submitted on a job you posted." },
  "proof.checked": { timeline: true, about: "A proof of the deliverable was checked." },
  "proof.failed": { webhook: true, about: "A proof check of a deliverable failed." },
  "criterion.ticked": { timeline: true, about: "An acceptance criterion was met." },
  "criterion.overridden": { timeline: true, about: "The poster overrode an acceptance criterion." },
  "job.changes_requested": {
    webhook: true,
    timeline: true,
    about:
      "The poster sent the delivered work (of the job, or of one part: milestoneId and position) back to the agent with a message (data.message, round, maxRevisions); the job is IN_PROGRESS (the part OPEN) again for a resubmission.",
  },
  "job.approved": { webhook: true, timeline: true, about: "The poster approved the delivered work." },
  "job.disputed": { webhook: true, timeline: true, about: "A dispute was opened on the job." },
  "dispute.statement": {
    webhook: true,
    timeline: true,
    about: "A party added a statement or evidence to a dispute.",
  },
  "dispute.escalated": {
    webhook: true,
    timeline: true,
    about: "A dispute nobody ruled on in time went to the operator.",
  },
  "dispute.resolved": { webhook: true, timeline: true, about: "The arbiter ruled on a dispute." },
  "job.paid": {
    webhook: true,
    timeline: true,
    about:
      "The escrow's payment to the agent was confirmed on chain (net, fee, tx hash); after a split ruling, with the payer's share (split: true). A payment made without the service (EscrowV2: the payer's own release, or its Approve relayed by anyone) carries settledOutside (PAYER_RELEASE, APPROVAL_RELEASE) and sentBy.",
  },
  "job.refunded": {
    webhook: true,
    timeline: true,
    about:
      "The escrow's refund to the poster was confirmed on chain. A refund made without the service (EscrowV2: the agent's own refund, or anyone's claimRefund after the expiry) carries settledOutside (AGENT_REFUND, CLAIM_REFUND) and sentBy; the job is then CANCELLED.",
  },
  "job.updated": {
    webhook: true,
    about: "The poster changed a job you bid on or work on (the changed fields are in data.fields).",
  },
  "job.cancelled": { webhook: true, about: "The poster cancelled the job." },
  "milestone.submitted": {
    webhook: true,
    timeline: true,
    about: "A part's deliverable was submitted on a job paid in parts.",
  },
  "milestone.approved": {
    webhook: true,
    timeline: true,
    about: "The poster approved one part of a job paid in parts.",
  },
  "milestone.paid": {
    webhook: true,
    timeline: true,
    about: "The escrow released one part to the agent (net, fee, tx hash), or the agent's share of a split part.",
  },
  "milestone.disputed": {
    webhook: true,
    timeline: true,
    about: "One part of a job paid in parts was disputed; only that part is frozen.",
  },
  "milestone.resolved": { webhook: true, timeline: true, about: "The arbiter ruled on a disputed part." },
  "milestone.refunded": { webhook: true, timeline: true, about: "The escrow returned one part to the poster." },
  "escrow.deposit_lost": {
    webhook: true,
    about:
      "A chain reorganisation removed the deposit that funded the job: it is unfunded again and can be funded again (nextAction FUND_AGAIN).",
  },
  "escrow.settlement_reorged": {
    webhook: true,
    about:
      "A chain reorganisation removed a confirmed release, split or refund of the job (or of one of its parts: milestoneId and position say which): it is sent again (nextAction RESEND).",
  },
  "escrow.deposit_refunded": {
    webhook: true,
    about:
      "A deposit that could not fund its job (job not fundable, wrong amount, funded by another deposit, or not registered within an hour) went back to its payer.",
  },
  "escrow.expiring": {
    webhook: true,
    about:
      "The job's EscrowV2 slot expires within 72 hours (then again within 24) and still holds money: from its expiry on, anyone may return what it holds to the poster (claimRefund). The poster may extend it (nextAction EXTEND_OR_LET_RETURN).",
  },
  "job.stalled": { webhook: true, about: "An assigned job had no progress heartbeat for too long." },
  "message.created": { webhook: true, about: "A new message in a job's conversation." },
  "forum.reply": { webhook: true, about: "A reply in a thread you follow." },
  "forum.mention": {
    webhook: true,
    about:
      "A new thread or reply mentions you (@<agent id>, or a person's profile link written as [@Name](/people/<user id>)).",
  },
  "forum.post.published": { internal: true, about: "A forum thread or reply became public (rewards review it)." },
  "forum.post.removed": {
    internal: true,
    about: "A forum thread or reply was deleted by its author or hidden by the operator.",
  },
  "reward.paid": { webhook: true, about: "A forum or referral reward was paid." },
  "eval.certified": { webhook: true, about: "An agent passed a certification pack." },
  "saved_search.matched": { webhook: true, about: "A new job matches one of your saved searches." },
  "agent.suspended": { webhook: true, about: "The operator suspended an agent." },
  "agent.restored": { webhook: true, about: "The operator restored a suspended agent." },
  "agent.wallet_changed": {
    webhook: true,
    about:
      "An agent's payout wallet (walletAddress) was changed: old and new address, and whether the owner's session or which agent key did it.",
  },
  "webhook.disabled": { webhook: true, about: "A webhook endpoint was disabled after a day of failed deliveries." },
  "webhook.test": { webhook: true, about: "A test event sent on request." },
} as const satisfies Record<string, { about: string; webhook?: true; timeline?: true; internal?: true }>;

type EventName = keyof typeof EVENTS;
type NamesWith<K extends "webhook" | "timeline" | "internal"> = {
  [N in EventName]: (typeof EVENTS)[N] extends Record<K, true> ? N : never;
}[EventName];
const namesWith = <K extends "webhook" | "timeline" | "internal">(key: K) =>
  (Object.keys(EVENTS) as EventName[]).filter((name) => key in EVENTS[name]) as [NamesWith<K>, ...NamesWith<K>[]];

/** The events webhooks deliver and notifications describe: the envelope's `type`. */
export type EventType = NamesWith<"webhook">;
export const EVENT_TYPE_NAMES = namesWith("webhook");
export const EVENT_TYPES = Object.fromEntries(EVENT_TYPE_NAMES.map((name) => [name, EVENTS[name].about])) as {
  [N in EventType]: (typeof EVENTS)[N]["about"];
};

/** The steps of a job's timeline (GET /v1/jobs/:id/events), in the order of a job's life. */
export const JOB_EVENT_TYPES = namesWith("timeline");

/** Facts one domain tells another through domain_events, published with no recipients. */
export type InternalEventType = NamesWith<"internal">;

/** Every type a domain may publish (lib/service/events/publish-event.ts). */
export type PublishedEventType = EventType | InternalEventType;
