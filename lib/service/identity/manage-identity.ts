import { fail } from "../errors";
import { encodeFunctionData, getAddress, isAddressEqual, parseEventLogs, type Address } from "viem";
import type { z } from "zod";
import { abi as identityAbi } from "@/contracts/artifacts/identity-registry";
import { getSuccessfulTransaction } from "@/lib/chain/receipts";
import {
  DECLARED_SERVICE_NAMES,
  ERC8004_REGISTRATION_TYPE,
  type AgentIdentity,
  type AgentRegistrationFile,
  type DeclareIdentityRequest,
} from "@/lib/api/schemas/identity";
import type { Actor } from "../auth/actor";
import { actsForAgent } from "../auth/acting-for-agent";
import type { ServiceContext } from "../context";
import { isUniqueViolation } from "../db/errors";
import { refuseOwnUrl } from "../proofs/fetch-policy";
import { agentPageOf, agentRegistryOf, agentUriOf, registriesOrThrow } from "./registries";

type Identity = z.input<typeof AgentIdentity>;

/** The agent, and that the caller is the human who owns it (an agent key does not register itself). */
async function ownedAgent(ctx: ServiceContext, actor: Actor, agentId: string) {
  const agent = await ctx.db.selectFrom("agents").selectAll().where("id", "=", agentId).executeTakeFirst();
  if (!agent) throw fail("NOT_FOUND", "agent not found");
  if (actor.kind !== "USER" || !actsForAgent(actor, agent)) {
    throw fail("FORBIDDEN", "only the human who owns the agent registers it");
  }
  const owner = await ctx.db
    .selectFrom("users")
    .select("address")
    .where("id", "=", actor.userId)
    .executeTakeFirstOrThrow();
  return { agent, ownerAddress: getAddress(owner.address) };
}

export async function presentIdentity(ctx: ServiceContext, agentId: string): Promise<Identity> {
  const row = await ctx.db
    .selectFrom("agent_identities")
    .selectAll()
    .where("agent_id", "=", agentId)
    .executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "identity not found");
  const checks = await ctx.db
    .selectFrom("agent_endpoint_checks")
    .selectAll()
    .where("agent_id", "=", agentId)
    .orderBy("name")
    .execute();
  const chain = ctx.config.chain;
  const registered = row.onchain_agent_id !== null;
  const registerCall =
    !registered && chain?.identityRegistryAddress
      ? {
          chainId: chain.chainId,
          to: chain.identityRegistryAddress,
          data: encodeFunctionData({ abi: identityAbi, functionName: "register", args: [row.agent_uri] }),
        }
      : null;
  return {
    agentId,
    registered,
    agentURI: row.agent_uri,
    onchainAgentId: row.onchain_agent_id,
    agentRegistry:
      registered && row.chain_id && row.registry_address
        ? agentRegistryOf(row.chain_id, getAddress(row.registry_address))
        : null,
    ownerAddress: row.owner_address,
    registerTxHash: row.register_tx_hash,
    registeredAt: row.registered_at?.toISOString() ?? null,
    x402Support: row.x402_support,
    services: checks.map((c) => ({
      name: c.name,
      endpoint: c.endpoint,
      lastCheckedAt: c.last_checked_at?.toISOString() ?? null,
      lastAnsweredAt: c.last_answered_at?.toISOString() ?? null,
      lastStatus: c.last_status,
      lastError: c.last_error,
    })),
    registerCall,
  };
}

/** PUT /v1/agents/:id/identity: the owner declares the services; the registration file lists them. */
export async function declareIdentity(
  ctx: ServiceContext,
  actor: Actor,
  agentId: string,
  body: z.output<typeof DeclareIdentityRequest>,
  siteUrl: string,
): Promise<Identity> {
  registriesOrThrow(ctx);
  const { agent } = await ownedAgent(ctx, actor, agentId);
  const services = DECLARED_SERVICE_NAMES.flatMap((name) =>
    body.services[name] ? [{ name, endpoint: body.services[name] }] : [],
  );
  for (const s of services) {
    refuseOwnUrl(ctx.config, s.endpoint, "AGENT_ENDPOINT_URL_NOT_ALLOWED", `the ${s.name} endpoint`);
  }
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .insertInto("agent_identities")
      .values({
        agent_id: agent.id,
        agent_uri: agentUriOf(siteUrl, agent.id),
        services: JSON.stringify(services),
        x402_support: body.x402Support,
      })
      .onConflict((oc) =>
        oc
          .column("agent_id")
          .doUpdateSet({ services: JSON.stringify(services), x402_support: body.x402Support, updated_at: new Date() }),
      )
      .execute();
    const names = services.map((s) => s.name);
    let gone = trx.deleteFrom("agent_endpoint_checks").where("agent_id", "=", agent.id);
    if (names.length > 0) gone = gone.where("name", "not in", names);
    await gone.execute();
    for (const s of services) {
      // A changed endpoint starts over: its last answer was someone else's.
      await trx
        .insertInto("agent_endpoint_checks")
        .values({ agent_id: agent.id, name: s.name, endpoint: s.endpoint })
        .onConflict((oc) =>
          oc
            .columns(["agent_id", "name"])
            .doUpdateSet({
              endpoint: s.endpoint,
              last_checked_at: null,
              last_answered_at: null,
              last_status: null,
              last_error: null,
            })
            .where("agent_endpoint_checks.endpoint", "<>", s.endpoint),
        )
        .execute();
    }
  });
  return presentIdentity(ctx, agent.id);
}

const invalid = (reason: string) =>
  fail("IDENTITY_TX_INVALID", `not a registration of this agent: ${reason}`, { reason });

/** POST /v1/agents/:id/identity/registration: the owner's register(agentURI) transaction, checked on chain. */
export async function confirmRegistration(
  ctx: ServiceContext,
  actor: Actor,
  agentId: string,
  txHash: string,
): Promise<Identity> {
  const chain = registriesOrThrow(ctx);
  const { agent, ownerAddress } = await ownedAgent(ctx, actor, agentId);
  const row = await ctx.db
    .selectFrom("agent_identities")
    .selectAll()
    .where("agent_id", "=", agent.id)
    .executeTakeFirst();
  if (!row) throw fail("IDENTITY_NOT_DECLARED", "declare the agent's services first (PUT /v1/agents/:id/identity)");
  const hash = txHash.toLowerCase();
  if (row.onchain_agent_id !== null) {
    if (row.register_tx_hash === hash) return presentIdentity(ctx, agent.id);
    throw fail("IDENTITY_ALREADY_REGISTERED", `the agent is already registered as agentId ${row.onchain_agent_id}`);
  }
  const mined = await getSuccessfulTransaction(chain, hash);
  if (!mined.ok) throw invalid(mined.reason);
  const registered = parseEventLogs({ abi: identityAbi, eventName: "Registered", logs: mined.receipt.logs }).filter(
    (log) => isAddressEqual(log.address, chain.identityRegistryAddress),
  );
  const mine = registered.find((log) => log.args.agentURI === row.agent_uri);
  if (!mine) {
    throw invalid(
      `it emitted no Registered event of the Identity Registry ${chain.identityRegistryAddress} for ${row.agent_uri}`,
    );
  }
  if (!isAddressEqual(mine.args.owner as Address, ownerAddress)) {
    throw invalid(`the registered owner ${mine.args.owner} is not the owner's wallet ${ownerAddress}`);
  }
  try {
    const updated = await ctx.db
      .updateTable("agent_identities")
      .set({
        chain_id: chain.chainId,
        registry_address: chain.identityRegistryAddress.toLowerCase(),
        onchain_agent_id: mine.args.agentId.toString(),
        owner_address: ownerAddress,
        register_tx_hash: hash,
        register_block: mined.receipt.blockNumber.toString(),
        registered_at: new Date(),
        updated_at: new Date(),
      })
      .where("agent_id", "=", agent.id)
      .where("onchain_agent_id", "is", null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return confirmRegistration(ctx, actor, agentId, txHash);
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw fail("IDENTITY_ALREADY_REGISTERED", "that on-chain agent is another agent's identity");
    }
    throw err;
  }
  return presentIdentity(ctx, agent.id);
}

/** GET /v1/agents/:id/registration.json: the specification's registration file. */
export async function registrationFile(
  ctx: ServiceContext,
  agentId: string,
  siteUrl: string,
): Promise<z.input<typeof AgentRegistrationFile>> {
  const agent = await ctx.db.selectFrom("agents").selectAll().where("id", "=", agentId).executeTakeFirst();
  const row =
    agent &&
    (await ctx.db.selectFrom("agent_identities").selectAll().where("agent_id", "=", agent.id).executeTakeFirst());
  if (!agent || !row) throw fail("NOT_FOUND", "registration file not found");
  const declared = row.services as unknown as Array<{ name: string; endpoint: string }>;
  const site = siteUrl.replace(/\/+$/, "");
  return {
    type: ERC8004_REGISTRATION_TYPE,
    name: agent.name,
    description: agent.description ?? `${agent.name}, an agent working on the Agent Work Marketplace (${site}).`,
    image: `${site}/icon.svg`,
    services: [
      { name: "web", endpoint: agentPageOf(site, agent.id) },
      ...declared.map((s) => ({ name: s.name, endpoint: s.endpoint })),
    ],
    x402Support: row.x402_support,
    active: agent.status === "ACTIVE",
    registrations:
      row.onchain_agent_id !== null && row.chain_id !== null && row.registry_address !== null
        ? [
            {
              agentId: Number(row.onchain_agent_id),
              agentRegistry: agentRegistryOf(row.chain_id, getAddress(row.registry_address)),
            },
          ]
        : [],
    supportedTrust: ["reputation"],
  };
}
