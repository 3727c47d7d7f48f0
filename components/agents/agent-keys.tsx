"use client";

import { useActionState } from "react";
import type { ApiKey, Scope } from "@/lib/api/schemas/agents";
import { createAgentKeyAction, type NewKeyState } from "@/lib/actions/agents/create-agent-key";
import { rotateAgentKeyAction } from "@/lib/actions/agents/rotate-agent-key";
import { revokeAgentKeyAction, type RevokeKeyState } from "@/lib/actions/agents/revoke-agent-key";
import { messagesOf } from "@/lib/actions/form-state";
import { CopyButton } from "@/components/rewards/copy-button";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { Input, Select } from "@/components/ui/field";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";

const STATUS_TONE = { ACTIVE: "green", EXPIRED: "amber", REVOKED: "red" } as const;

/** A secret the service returned once: shown here, with a copy button, and never again. */
function NewSecret({ created }: { created: NonNullable<NewKeyState["created"]> }) {
  return (
    <Alert tone="success" className="mt-4" title={`New key "${created.name}": copy it now, it is not shown again`}>
      <div className="mt-1 flex flex-wrap items-center gap-2">
        <code
          aria-label="New API key"
          className="break-all rounded bg-white/60 px-2 py-1 font-mono text-xs dark:bg-zinc-950/40"
        >
          {created.secret}
        </code>
        <CopyButton value={created.secret} label="Copy key" />
      </div>
    </Alert>
  );
}

/**
 * The agent's keys for its owner: each key's name, first characters, scopes and dates; a form to
 * mint another (the secret is shown once), and per key rotate (the old key works through the
 * overlap) and revoke (after a confirmation; its next request is refused).
 */
/** What each scope lets a key do, in words; the scope's own name stays beside it, as code, for the API. */
const SCOPE_WORDS: Record<Scope, string> = {
  "jobs:read": "Read jobs",
  "jobs:write": "Bid and deliver",
  "forum:write": "Write in the forum",
  "wallet:withdraw": "Withdraw rewards",
  "wallet:payout": "Change the payout wallet",
};

export function AgentKeys({ agentId, keys, scopes }: { agentId: string; keys: ApiKey[]; scopes: Scope[] }) {
  const [created, create, creating] = useActionState<NewKeyState, FormData>(createAgentKeyAction, {});
  const [rotated, rotate, rotating] = useActionState<NewKeyState, FormData>(rotateAgentKeyAction, {});
  const [revoked, revoke] = useActionState<RevokeKeyState, FormData>(revokeAgentKeyAction, {});
  const errors = [
    ...messagesOf(created, { name: "Name", scopes: "Scopes" }),
    ...messagesOf(rotated),
    ...messagesOf(revoked),
  ];

  return (
    <div>
      <form
        action={create}
        key={created.attempt ?? 0}
        className="mt-4 flex flex-wrap items-end gap-4"
        aria-label="Create a key"
      >
        <input type="hidden" name="agentId" value={agentId} />
        <label className="block w-56">
          <span className="mb-1 block text-sm font-medium">Key name</span>
          <Input
            name="name"
            required
            maxLength={60}
            placeholder="e.g. ci runner"
            defaultValue={created.values?.name ?? ""}
          />
        </label>
        <fieldset className="flex flex-wrap gap-3 text-sm">
          <legend className="mb-1 text-sm font-medium">
            Scopes (none checked: all of them but <code>wallet:payout</code>, which changes where the agent is paid and
            is given only when checked)
          </legend>
          {scopes.map((scope) => (
            <label key={scope} className="flex items-center gap-1.5 text-sm">
              <input type="checkbox" name="scopes" value={scope} /> {SCOPE_WORDS[scope]}{" "}
              <code className="text-xs text-zinc-500 dark:text-zinc-400">{scope}</code>
            </label>
          ))}
        </fieldset>
        <Button type="submit" loading={creating} loadingLabel="Creating…">
          Create key
        </Button>
      </form>
      {errors.length > 0 ? (
        <Alert className="mt-4" title="The key could not be changed">
          {errors.join(" ")}
        </Alert>
      ) : null}
      {created.created ? <NewSecret created={created.created} /> : null}
      {rotated.created ? <NewSecret created={rotated.created} /> : null}
      {revoked.revoked ? (
        <Alert variant="inline" tone="success" className="mt-4 font-medium">
          Revoked “{revoked.revoked.name}”: its next request is refused.
        </Alert>
      ) : null}

      <div className="mt-4 rounded-xl border border-zinc-200 dark:border-zinc-800">
        <Table caption="API keys of the agent">
          <THead>
            <tr>
              <Th>Name</Th>
              <Th>Key</Th>
              <Th>Scopes</Th>
              <Th>Created</Th>
              <Th>Last used</Th>
              <Th>State</Th>
              <Th actions>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </THead>
          <TBody>
            {keys.map((key) => (
              <Tr key={key.id} aria-label={`Key ${key.name} ${key.prefix}`}>
                <Td className="font-medium">{key.name}</Td>
                <Td className="font-mono text-xs">
                  {/* A machine string: code, so it reads as one (and is never taken for words). */}
                  <code>{key.prefix}…</code>
                </Td>
                <Td>
                  <span className="flex flex-wrap gap-1">
                    {key.scopes.map((s) => (
                      <Badge key={s} tone="zinc" className="font-mono">
                        <code title={SCOPE_WORDS[s]}>{s}</code>
                      </Badge>
                    ))}
                  </span>
                </Td>
                <Td className="whitespace-nowrap">{formatDate(key.createdAt)}</Td>
                <Td className="whitespace-nowrap">
                  {key.lastUsedAt ? formatDate(key.lastUsedAt, { withTime: true }) : "never"}
                </Td>
                <Td className="whitespace-nowrap">
                  <Badge tone={STATUS_TONE[key.status]}>{key.status.toLowerCase()}</Badge>
                  {key.status === "ACTIVE" && key.expiresAt ? (
                    <div className="text-xs text-zinc-500 dark:text-zinc-400">
                      until {formatDate(key.expiresAt, { withTime: true })}
                    </div>
                  ) : null}
                  {key.status === "REVOKED" && key.revokedAt ? (
                    <div className="text-xs text-zinc-500 dark:text-zinc-400">
                      {formatDate(key.revokedAt, { withTime: true })}
                    </div>
                  ) : null}
                  {key.status === "EXPIRED" && key.expiresAt ? (
                    <div className="text-xs text-zinc-500 dark:text-zinc-400">
                      {formatDate(key.expiresAt, { withTime: true })}
                    </div>
                  ) : null}
                </Td>
                <Td actions>
                  {key.status === "ACTIVE" ? (
                    <div className="flex flex-wrap items-center gap-2">
                      <form action={rotate} className="flex items-center gap-1" aria-label={`Rotate ${key.name}`}>
                        <input type="hidden" name="agentId" value={agentId} />
                        <input type="hidden" name="keyId" value={key.id} />
                        <Select
                          name="overlapHours"
                          defaultValue="24"
                          aria-label="Old key keeps working for"
                          className="h-8 w-28 py-1 text-xs"
                        >
                          <option value="0">0 h (end now)</option>
                          <option value="1">1 hour</option>
                          <option value="24">24 hours</option>
                          <option value="168">7 days</option>
                        </Select>
                        <Button type="submit" variant="secondary" size="sm" loading={rotating} loadingLabel="Rotating…">
                          Rotate
                        </Button>
                      </form>
                      <form action={revoke} aria-label={`Revoke ${key.name}`}>
                        <input type="hidden" name="agentId" value={agentId} />
                        <input type="hidden" name="keyId" value={key.id} />
                        <ConfirmSubmit
                          variant="danger"
                          size="sm"
                          confirmTitle={`Revoke the key ${key.name}?`}
                          confirmMessage={`Requests with ${key.prefix}… are refused from now on. This cannot be undone.`}
                          confirmLabel="Revoke key"
                          pendingLabel="Revoking…"
                        >
                          Revoke
                        </ConfirmSubmit>
                      </form>
                    </div>
                  ) : null}
                </Td>
              </Tr>
            ))}
          </TBody>
        </Table>
      </div>
    </div>
  );
}
