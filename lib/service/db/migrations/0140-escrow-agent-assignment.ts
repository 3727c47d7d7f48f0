import { sql, type Kysely, type Migration } from "kysely";

// The agent a version 2 escrow slot pays (docs/escrow-v2.md, step 3): assigned on chain by the
// payer's consent when the poster accepts a bid (or approves a bounty's claim), and recorded here
// so every settlement checks the slot still pays it (or where that agent moved itself).
//
// - jobs.escrow_agent: the address the slot pays, as last read from the chain; null on version 1
//   jobs (their settlements name the agent's payout wallet at the time) and before acceptance.
// - jobs.escrow_agent_block: the block it was learnt in; the agent's own AgentMoved events are
//   looked for from there.
// - jobs.escrow_assign_raw_tx / escrow_assign_tx_hash: the relayed `assign` transaction, kept
//   before it is broadcast (the durable sender), so a retried acceptance asks the chain about it
//   instead of signing another.
// - jobs.escrow_assign_deadline: the deadline (unix seconds) of the `Assign` the service last asked
//   the poster to sign for this job (409 ASSIGNMENT_SIGNATURE_REQUIRED, at a bid's acceptance or a
//   bounty's approval): the signature sent back with {assignmentSignature} is relayed with it. A
//   signature made for an earlier one no longer matches: the escrow refuses it, and a fresh one is
//   asked for.
export const escrowAgentAssignmentMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table jobs add column escrow_agent text;
alter table jobs add column escrow_agent_block bigint;
alter table jobs add column escrow_assign_raw_tx text;
alter table jobs add column escrow_assign_tx_hash text;
alter table jobs add column escrow_assign_deadline bigint;
`,
      )
      .execute(db);
  },
};
