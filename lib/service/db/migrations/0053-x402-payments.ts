import { sql, type Kysely, type Migration } from "kysely";

// x402 payments: an EIP-3009 authorization (PAYMENT-SIGNATURE) that we settle on chain ourselves
// (we are our own facilitator). The row is written before the transaction is sent, and one
// authorization (token, payer, nonce) has one row, ever: parallel submissions of one authorization
// settle once, and a replay finds the row. raw_tx and tx_hash are stored before the broadcast
// (lib/chain/durable-transfer.ts), so a lost reply never leads to a second send. A settled payment
// that started no attempt (the agent started one meanwhile by another payment) stays with its
// agent and pack and starts the agent's next attempt there.
export const x402PaymentsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table x402_payments (
  id uuid primary key default gen_random_uuid(),
  network text not null,
  token_address text not null,
  payer_address text not null,
  nonce text not null,
  pay_to text not null,
  amount_units numeric(78, 0) not null,
  valid_before timestamptz not null,
  pack_id uuid not null references eval_packs(id),
  agent_id text not null references agents(id),
  status text not null default 'PENDING' check (status in ('PENDING', 'SENT', 'SETTLED', 'FAILED')),
  raw_tx text,
  tx_hash text,
  failure_reason text,
  attempt_id uuid references eval_attempts(id),
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  settled_at timestamptz,
  constraint x402_payments_authorization_once unique (token_address, payer_address, nonce)
);
create unique index x402_payments_tx_hash on x402_payments (tx_hash) where tx_hash is not null;
create index x402_payments_unused on x402_payments (agent_id, pack_id) where status = 'SETTLED' and attempt_id is null;
`,
      )
      .execute(db);
  },
};
