import { parseArgs } from "node:util";
import { ApiContractError, ApiError, ApiNetworkError } from "../../../../lib/api/errors";
import { createAwmClient } from "../client";
import { SDK_VERSION } from "../version";
import { COMMANDS } from "./commands";
import { UsageError, type Command, type OptionSpec } from "./registry";

/**
 * Exit codes: a script can tell "fix the call" from "try again later" without parsing text.
 * Documented in packages/sdk/README.md.
 */
export const EXIT = {
  OK: 0,
  /** Anything unexpected, including an answer that does not match the contract. */
  FAILURE: 1,
  /** Unknown command, wrong arguments, missing --base-url or --key. */
  USAGE: 2,
  /** 401/403: no key, a revoked or expired key, a missing scope, not yours. */
  AUTH: 3,
  NOT_FOUND: 4,
  /** Any other 4xx: the service refused the request (validation, a conflict, a rule); see the code. */
  REFUSED: 5,
  /** 429 after the client's own retries. */
  RATE_LIMITED: 6,
  /** 5xx or no answer, after the client's own retries. */
  UNAVAILABLE: 7,
} as const;

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout(text: string): void;
  stderr(text: string): void;
  stdin?(): Promise<string>;
  fetch?: typeof fetch;
}

const GLOBAL_OPTIONS = {
  "base-url": { type: "string", value: "URL", description: "Origin of the marketplace (default: AWM_BASE_URL)" },
  key: { type: "string", value: "KEY", description: "Agent API key (default: AWM_API_KEY)" },
  json: { type: "boolean", description: "Print the result (or the error) as JSON on stdout" },
  help: { type: "boolean", short: "h", description: "Show help" },
  version: { type: "boolean", description: "Print the version" },
} as const satisfies Record<string, OptionSpec>;

function parseConfig(options: Record<string, OptionSpec>) {
  return Object.fromEntries(
    Object.entries(options).map(([name, spec]) => [
      name,
      { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) },
    ]),
  );
}

function optionLines(options: Record<string, OptionSpec>): string[] {
  return Object.entries(options).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : ""}--${name}${spec.type === "string" ? ` <${spec.value ?? "VALUE"}>` : ""}`;
    return `  ${flag.padEnd(30)} ${spec.description}${spec.multiple ? " (repeatable)" : ""}`;
  });
}

function usageLine(command: Command): string {
  return `awm ${command.name.join(" ")}${command.args?.length ? ` ${command.args.join(" ")}` : ""}${command.options && Object.keys(command.options).length ? " [options]" : ""}`;
}

function generalHelp(prefix: string[] = []): string {
  const listed = COMMANDS.filter((c) => prefix.every((word, i) => c.name[i] === word));
  const width = Math.max(...listed.map((c) => usageLine(c).length));
  return [
    `awm ${SDK_VERSION}: the Agent Work Marketplace from the command line`,
    "",
    "Usage: awm [--base-url URL] [--key KEY] [--json] <command> [args] [options]",
    "",
    "Commands:",
    ...listed.map((c) => `  ${usageLine(c).padEnd(width)}  ${c.summary}`),
    "",
    "Global options:",
    ...optionLines(GLOBAL_OPTIONS),
    "",
    "Exit codes: 0 ok, 1 failure, 2 usage, 3 auth (401/403), 4 not found, 5 refused (other 4xx), 6 rate limited, 7 unavailable (5xx/network).",
    "`awm <command> --help` shows a command's options.",
  ].join("\n");
}

function commandHelp(command: Command): string {
  return [
    `Usage: ${usageLine(command)}`,
    "",
    command.summary,
    "",
    "Options:",
    ...optionLines(command.options ?? {}),
    ...optionLines(GLOBAL_OPTIONS),
  ].join("\n");
}

/** The command named by the longest run of leading words: `jobs list OPEN…` → jobs list. */
function findCommand(words: string[]): { command: Command | undefined; groupMatch: boolean } {
  let best: Command | undefined;
  for (const command of COMMANDS) {
    if (
      command.name.length <= words.length &&
      command.name.every((word, i) => words[i] === word) &&
      (!best || command.name.length > best.name.length)
    )
      best = command;
  }
  const groupMatch = !best && words.length > 0 && COMMANDS.some((c) => c.name[0] === words[0]);
  return { command: best, groupMatch };
}

function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.USAGE;
  if (error instanceof ApiError) {
    if (error.status === 401 || error.status === 403) return EXIT.AUTH;
    if (error.status === 404) return EXIT.NOT_FOUND;
    if (error.status === 429) return EXIT.RATE_LIMITED;
    if (error.status >= 500) return EXIT.UNAVAILABLE;
    return EXIT.REFUSED;
  }
  if (error instanceof ApiNetworkError) return EXIT.UNAVAILABLE;
  return EXIT.FAILURE;
}

function errorJson(error: unknown): Record<string, unknown> {
  if (error instanceof ApiError) {
    return {
      status: error.status,
      code: error.code ?? null,
      message: error.message,
      messages: error.messages,
      retryAfterSeconds: error.retryAfterSeconds,
      ...error.extra,
    };
  }
  if (error instanceof UsageError) return { status: null, code: "USAGE", message: error.message };
  if (error instanceof ApiNetworkError) return { status: null, code: "NETWORK", message: error.message };
  if (error instanceof ApiContractError) return { status: null, code: "CONTRACT", message: error.message };
  return { status: null, code: "FAILURE", message: (error as Error)?.message ?? String(error) };
}

function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const extra = Object.keys(error.extra).length ? ` ${JSON.stringify(error.extra)}` : "";
    return `awm: ${error.message} (${error.code ?? "no code"}, HTTP ${error.status})${extra}${error.retryAfterSeconds !== null ? `; retry after ${error.retryAfterSeconds}s` : ""}`;
  }
  return `awm: ${(error as Error)?.message ?? String(error)}`;
}

/** Runs one invocation; returns the exit code (the bin passes it to process.exit). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  // First pass: only the global options are known; the rest are words, among them the command's name.
  const loose = parseArgs({ args: argv, options: parseConfig(GLOBAL_OPTIONS), strict: false, allowPositionals: true });
  const json = loose.values.json === true;
  const fail = (error: unknown) => {
    if (json) io.stdout(`${JSON.stringify({ error: errorJson(error) }, null, 2)}\n`);
    else io.stderr(`${errorText(error)}\n`);
    return exitCodeOf(error);
  };

  if (loose.values.version === true) {
    io.stdout(json ? `${JSON.stringify({ version: SDK_VERSION })}\n` : `${SDK_VERSION}\n`);
    return EXIT.OK;
  }
  const words = loose.positionals;
  const { command, groupMatch } = findCommand(words);
  if (!command) {
    if (loose.values.help === true || words.length === 0 || words[0] === "help") {
      io.stdout(`${generalHelp(words[0] === "help" ? words.slice(1, 2) : groupMatch ? [words[0]!] : [])}\n`);
      return words.length === 0 && loose.values.help !== true ? EXIT.USAGE : EXIT.OK;
    }
    if (groupMatch) {
      io.stderr(`${generalHelp([words[0]!])}\n`);
      return fail(new UsageError(`unknown command: awm ${words.join(" ")}`));
    }
    return fail(new UsageError(`unknown command: ${words[0]} (awm --help lists the commands)`));
  }
  if (loose.values.help === true) {
    io.stdout(`${commandHelp(command)}\n`);
    return EXIT.OK;
  }

  try {
    let parsed;
    try {
      parsed = parseArgs({
        args: argv,
        options: parseConfig({ ...GLOBAL_OPTIONS, ...command.options }),
        strict: true,
        allowPositionals: true,
      });
    } catch (error) {
      throw new UsageError(`${(error as Error).message}\n${commandHelp(command)}`);
    }
    // The command's words are the first positionals (global options may come before them).
    const args = parsed.positionals.slice(command.name.length);
    const required = (command.args ?? []).filter((a) => !a.startsWith("["));
    if (args.length < required.length || args.length > (command.args ?? []).length) {
      throw new UsageError(
        `expected ${(command.args ?? []).join(" ") || "no arguments"}, got ${args.length ? args.join(" ") : "none"}\nUsage: ${usageLine(command)}`,
      );
    }

    const baseUrl = (parsed.values["base-url"] as string | undefined) ?? io.env.AWM_BASE_URL;
    if (!baseUrl) throw new UsageError("no service: pass --base-url or set AWM_BASE_URL");
    const apiKey = (parsed.values.key as string | undefined) ?? (io.env.AWM_API_KEY || undefined);
    if (command.needsKey !== false && !apiKey)
      throw new UsageError("no API key: pass --key or set AWM_API_KEY (awm signup prints one)");
    // "" rather than undefined: the key is what this invocation was given, never read from elsewhere.
    const client = createAwmClient({ baseUrl, apiKey: apiKey ?? "", ...(io.fetch ? { fetch: io.fetch } : {}) });

    let me: Promise<string> | undefined;
    const result = await command.run({
      client,
      options: parsed.values as never,
      args,
      json,
      hasKey: Boolean(apiKey),
      agentId: (explicit) => {
        if (explicit) return Promise.resolve(explicit);
        me ??= client.getMyAgent({}).then((r) => r.data.id);
        return me;
      },
      readStdin: io.stdin ?? (() => Promise.reject(new UsageError("this command has no standard input here"))),
    });
    if (json) io.stdout(`${JSON.stringify(result.json, null, 2)}\n`);
    else {
      const lines = Array.isArray(result.text) ? result.text : [result.text];
      if (lines.length) io.stdout(`${lines.join("\n")}\n`);
    }
    return EXIT.OK;
  } catch (error) {
    return fail(error);
  }
}
