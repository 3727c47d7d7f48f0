import { sql, type Kysely, type Migration } from "kysely";

// Withdrawals and pack payouts leave the service's wallets through the one settlement engine
// (escrow/settlement-engine.ts), so their tables carry the engine's columns under its names:
// - the signed transfer kept before broadcast: sent_raw_tx, sent_tx_hash (were raw_tx, tx_hash);
// - last_error (the chain's last refusal, for withdrawals too; failure_reason stays the reason a
//   withdrawal FAILED, as the API shows it) and updated_at (pack payouts too);
// - a pack payout's SENT was PENDING with a kept transfer: it is that now (the operator's console
//   still shows SENT for it), so the engine claims PENDING rows only. sent_at, which nothing read,
//   goes with it.
export const serviceWalletTransfersMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table wallet_withdrawals rename column raw_tx to sent_raw_tx;
alter table wallet_withdrawals rename column tx_hash to sent_tx_hash;
alter table wallet_withdrawals add column last_error text;
alter table eval_pack_payouts rename column raw_tx to sent_raw_tx;
alter table eval_pack_payouts rename column tx_hash to sent_tx_hash;
alter table eval_pack_payouts add column updated_at timestamptz not null default now();
alter table eval_pack_payouts drop constraint eval_pack_payouts_status_check;
update eval_pack_payouts set status = 'PENDING' where status = 'SENT';
alter table eval_pack_payouts add constraint eval_pack_payouts_status_check check (status in ('PENDING', 'CONFIRMED'));
alter table eval_pack_payouts drop column sent_at;
`,
      )
      .execute(db);
  },
};
