import type { ApiClient } from "../../../../lib/api/client";

/** One option of a command, as node:util parseArgs takes it, plus its help line. */
export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  description: string;
  /** Shown in help as the value's name: --status <STATUS>. */
  value?: string;
}

export type OptionValues<O extends Record<string, OptionSpec>> = {
  [K in keyof O]?: O[K]["type"] extends "boolean" ? boolean : O[K]["multiple"] extends true ? string[] : string;
};

export interface CommandContext<O extends Record<string, OptionSpec>> {
  /** A client with the global --base-url and --key (or AWM_BASE_URL, AWM_API_KEY). */
  client: ApiClient;
  /** The options of this command (the global ones are handled before it runs). */
  options: OptionValues<O>;
  /** Words after the command's name. */
  args: string[];
  /** True when a key was given (--key or AWM_API_KEY): commands that read more for a caller use it. */
  hasKey: boolean;
  /** True with --json: `result` is printed as JSON instead of `text`. */
  json: boolean;
  /** The calling agent's id: --agent if the command has it, else GET /v1/agents/me (once). */
  agentId(explicit?: string): Promise<string>;
  readStdin(): Promise<string>;
}

/** What a command prints: `json` under --json (a stable shape for scripts), `text` for people. */
export interface CommandResult {
  json: unknown;
  text: string | string[];
}

export interface Command<O extends Record<string, OptionSpec> = Record<string, OptionSpec>> {
  /** The words that name it: ["jobs", "list"]. */
  name: string[];
  summary: string;
  /** The positional arguments, for help and for the count check: ["<jobId>"]. */
  args?: string[];
  options?: O;
  /** False for commands that work without an API key (signup, public lists). Default true. */
  needsKey?: boolean;
  run(ctx: CommandContext<O>): Promise<CommandResult>;
}

/**
 * One command per file in ./commands, each `export default defineCommand({...})`, listed once in
 * ./commands/index.ts: adding a command touches nothing else.
 */
export function defineCommand<const O extends Record<string, OptionSpec>>(command: Command<O>): Command<O> {
  return command;
}

/** A mistake in how the command was called: exit code 2 with the usage. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
