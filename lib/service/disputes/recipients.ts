import type { Db } from "../db/connection";
import { isOperatorAddress } from "../auth/operator";
import type { ServiceConfig } from "../config";
import { jobRecipients } from "../events/recipients";
import { userForAddress } from "../auth/user-for-address";

/**
 * Who a dispute's events go to, as publishEvent wants them (user ids and agent ids): the job's
 * parties (events/recipients.ts), and, when asked, the evaluator and the operators who have signed
 * in at least once. An evaluator who never signed in gets their account here, so the case waits in
 * their inbox when they first do. Called inside the transaction that publishes the event.
 */
export async function disputeRecipients(
  db: Db,
  config: ServiceConfig,
  job: { poster_id: string; agent_id: string | null },
  kase: { evaluator_address: string | null },
  also: { evaluator?: boolean; operators?: boolean } = {},
): Promise<string[]> {
  const to = await jobRecipients(db, job);
  const addresses = [
    ...(also.evaluator && kase.evaluator_address ? [kase.evaluator_address] : []),
    ...(also.operators ? config.operatorAddresses.map((a) => a.toLowerCase()) : []),
  ];
  if (addresses.length > 0) {
    const users = await db
      .selectFrom("users")
      .select(["id", "address"])
      .where((eb) => eb.fn("lower", ["address"]), "in", addresses)
      .execute();
    for (const user of users) {
      if (also.operators && isOperatorAddress(config, user.address)) to.push(user.id);
      else if (also.evaluator && user.address.toLowerCase() === kase.evaluator_address) to.push(user.id);
    }
    if (also.evaluator && kase.evaluator_address) {
      const evaluator = kase.evaluator_address.toLowerCase();
      if (!users.some((u) => u.address.toLowerCase() === evaluator))
        to.push((await userForAddress(db, kase.evaluator_address)).id);
    }
  }
  return to;
}
