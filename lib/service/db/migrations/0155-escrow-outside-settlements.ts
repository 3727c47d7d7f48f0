import { sql, type Kysely, type Migration } from "kysely";

// Money that leaves an EscrowV2 slot without the service (docs/escrow-v2.md, step 6), and the
// payer's Approve kept for the agent.
//
// - escrow_settlements.settled_outside: null when the service's operator key settled the slot;
//   otherwise who did, as read from the chain: PAYER_RELEASE (the payer's own `release`),
//   APPROVAL_RELEASE (`releaseWithApproval` relayed by anyone with the payer's Approve),
//   AGENT_REFUND (the agent's own `refund`), CLAIM_REFUND (`claimRefund` from the expiry on). Such a
//   row is CONFIRMED with the transaction that moved the money; the service sent none.
// - jobs.escrow_settled_outside: the same, on the job it settled (what the job resource shows).
// - jobs.escrow_outside_checked_at: when the watcher last read the slot of a funded job it has not
//   seen settled (the watcher reads the longest unread first).
// - jobs.escrow_approval_signature / escrow_approval_deadline / escrow_approval_agent: the payer's
//   EIP-712 Approve(jobId, payer, agent, deadline) sent with the approval, checked before it is
//   kept, shown on the job to its agent alone so it can call releaseWithApproval itself.
export const escrowOutsideSettlementsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table escrow_settlements add column settled_outside text
  check (settled_outside in ('PAYER_RELEASE', 'APPROVAL_RELEASE', 'AGENT_REFUND', 'CLAIM_REFUND'));
alter table jobs add column escrow_settled_outside text
  check (escrow_settled_outside in ('PAYER_RELEASE', 'APPROVAL_RELEASE', 'AGENT_REFUND', 'CLAIM_REFUND'));
alter table jobs add column escrow_outside_checked_at timestamptz;
alter table jobs add column escrow_approval_signature text;
alter table jobs add column escrow_approval_deadline bigint;
alter table jobs add column escrow_approval_agent text;
`,
      )
      .execute(db);
  },
};
