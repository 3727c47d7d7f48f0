import { sql, type Kysely, type Migration } from "kysely";

// Stray-deposit returns and x402 settlements leave through the one settlement engine
// (escrow/settlement-engine.ts), so their tables carry the engine's columns under its names:
// - escrow_deposits keeps the refund's signed transaction before it is broadcast (sent_raw_tx,
//   sent_tx_hash); REFUND_PENDING is its PENDING and REFUNDED its CONFIRMED (the operator's
//   console, /admin/deposits, shows those words, so they stay), refund_tx_hash its receipt;
// - x402_payments: raw_tx, tx_hash become sent_raw_tx, sent_tx_hash (the transferWithAuthorization
//   is kept before broadcast, and it is the payment's transaction once SETTLED); the lease columns
//   (attempts, lease_until, last_error, updated_at) are added; SENT was PENDING with a kept
//   transaction: it is that now (as pack payouts' SENT in 0120), so the engine claims PENDING rows.
export const engineStraysAndX402Migration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table escrow_deposits add column sent_raw_tx text;
alter table escrow_deposits add column sent_tx_hash text;
alter table x402_payments rename column raw_tx to sent_raw_tx;
alter table x402_payments rename column tx_hash to sent_tx_hash;
alter index x402_payments_tx_hash rename to x402_payments_sent_tx_hash;
alter table x402_payments add column attempts integer not null default 0;
alter table x402_payments add column lease_until timestamptz;
alter table x402_payments add column last_error text;
alter table x402_payments add column updated_at timestamptz not null default now();
alter table x402_payments drop constraint x402_payments_status_check;
update x402_payments set status = 'PENDING' where status = 'SENT';
alter table x402_payments add constraint x402_payments_status_check check (status in ('PENDING', 'SETTLED', 'FAILED'));
`,
      )
      .execute(db);
  },
};
