import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface, type Interface } from "node:readline";
import type { ApiClient } from "@/lib/api/client";
import type { EvalMode, EvalReport, EvalSessionItem } from "@/lib/api/schemas/evals";

// Drives an agent program through a certification pack over the API, for certifying in CI
// (scripts/certify.ts is the command). The agent sees one item at a time and answers it:
// - a program (--agent-cmd): each item is written to its stdin as one JSON line
//   {"type":"item", position, of, kind, section, points, prompt, choices, answerBy};
//   it prints one JSON line {"answer": <value>} per item on stdout (other output goes to stderr);
// - a local HTTP endpoint (--agent-url): each item is POSTed as that JSON, the response body is {"answer": …}.
// Timing telemetry (ttfbMs, totalMs) is measured here and sent with each answer.

export interface AgentAnswer {
  answer: unknown;
  ttfbMs: number;
  totalMs: number;
}

export interface AgentDriver {
  answer(item: EvalSessionItem): Promise<AgentAnswer>;
  close(): Promise<void>;
}

function itemMessage(item: EvalSessionItem) {
  return {
    type: "item",
    position: item.position,
    of: item.of,
    kind: item.kind,
    section: item.section,
    points: item.points,
    prompt: item.prompt,
    choices: item.choices,
    answerBy: item.answerBy,
  };
}

function parseAnswerLine(line: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new Error(`the agent printed a line that is not JSON: ${line.slice(0, 200)}`);
  }
  if (typeof parsed !== "object" || parsed === null || !("answer" in parsed))
    throw new Error(`the agent's line has no "answer": ${line.slice(0, 200)}`);
  return (parsed as { answer: unknown }).answer;
}

/** An agent program answering on stdin/stdout, one JSON line each way. */
export function stdioAgent(command: string, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): AgentDriver {
  const child: ChildProcessWithoutNullStreams = spawn(command, {
    shell: true,
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stderr.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  const lines: Interface = createInterface({ input: child.stdout });
  const queue: string[] = [];
  const waiting: Array<(line: string | null) => void> = [];
  let firstByteAt: number | null = null;
  child.stdout.on("data", () => {
    firstByteAt ??= performance.now();
  });
  lines.on("line", (line) => {
    if (line.trim() === "") return;
    const w = waiting.shift();
    if (w) w(line);
    else queue.push(line);
  });
  let exited = false;
  child.on("exit", () => {
    exited = true;
    while (waiting.length) waiting.shift()!(null);
  });
  const nextLine = () =>
    new Promise<string | null>((resolve) => {
      if (queue.length) resolve(queue.shift()!);
      else if (exited) resolve(null);
      else waiting.push(resolve);
    });
  return {
    async answer(item) {
      const sentAt = performance.now();
      firstByteAt = null;
      child.stdin.write(`${JSON.stringify(itemMessage(item))}\n`);
      const line = await nextLine();
      if (line === null) throw new Error("the agent program exited before answering");
      const doneAt = performance.now();
      return {
        answer: parseAnswerLine(line),
        ttfbMs: Math.round((firstByteAt ?? doneAt) - sentAt),
        totalMs: Math.round(doneAt - sentAt),
      };
    },
    async close() {
      child.stdin.end();
      if (!exited) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            child.kill();
            resolve();
          }, 2000);
          child.on("exit", () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
  };
}

/**
 * An agent behind a local HTTP endpoint. Only loopback addresses: this command runs beside the
 * agent (in CI), and an item is not sent to another machine by mistake.
 */
export function httpAgent(url: string, fetchImpl: typeof fetch = fetch): AgentDriver {
  const parsed = new URL(url);
  if (
    !["127.0.0.1", "localhost", "[::1]"].includes(parsed.hostname) ||
    !["http:", "https:"].includes(parsed.protocol)
  ) {
    throw new Error("--agent-url must be a local http(s) endpoint (localhost, 127.0.0.1 or [::1])");
  }
  return {
    async answer(item) {
      const sentAt = performance.now();
      const res = await fetchImpl(parsed, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(itemMessage(item)),
      });
      const ttfb = performance.now();
      const text = await res.text();
      const doneAt = performance.now();
      if (!res.ok) throw new Error(`the agent endpoint answered ${res.status}`);
      return { answer: parseAnswerLine(text), ttfbMs: Math.round(ttfb - sentAt), totalMs: Math.round(doneAt - sentAt) };
    },
    async close() {},
  };
}

export interface RunOptions {
  client: ApiClient;
  packId: string;
  mode: EvalMode;
  agent: AgentDriver;
  /** For an owner session: which agent takes the pack (an agent key takes it for itself). */
  agentId?: string;
  /** Payment of a paid pack: the USDC transfer's hash and the payer's signature. */
  txHash?: string;
  signature?: string;
  log?: (line: string) => void;
  heartbeatMs?: number;
}

/** Starts a session, feeds every item to the agent, answers, finalizes; returns the report. */
export async function runCertification(options: RunOptions): Promise<EvalReport> {
  const { client, agent } = options;
  const log = options.log ?? (() => undefined);
  const started = await client.startEvalAttempt({
    params: { id: options.packId },
    body: {
      mode: options.mode,
      ...(options.agentId ? { agentId: options.agentId } : {}),
      ...(options.txHash ? { txHash: options.txHash, signature: options.signature } : {}),
    },
  });
  const attemptId = started.data.id;
  log(
    `attempt ${attemptId}: ${started.data.itemCount} items, mode ${options.mode}${started.data.deadlineAt ? `, until ${started.data.deadlineAt}` : ""}`,
  );
  // Heartbeats keep a long session visible while the agent thinks.
  const beat = setInterval(() => {
    client.heartbeatEvalAttempt({ params: { id: attemptId } }).catch(() => undefined);
  }, options.heartbeatMs ?? 30_000);
  try {
    for (;;) {
      const { data } = await client.nextEvalItem({ params: { id: attemptId } });
      if (!data.item) break;
      const item = data.item;
      const reply = await agent.answer(item);
      await client.answerEvalItem({
        params: { id: attemptId },
        body: { position: item.position, answer: reply.answer, ttfbMs: reply.ttfbMs, totalMs: reply.totalMs },
      });
      log(`item ${item.position}/${item.of} (${item.section}) answered in ${reply.totalMs} ms`);
    }
  } finally {
    clearInterval(beat);
    await agent.close();
  }
  const report = (await client.finalizeEvalAttempt({ params: { id: attemptId } })).data;
  // A failed attempt's score is not told (only that it failed).
  log(
    report.score === null
      ? `FAILED (pass mark ${report.passScore} of ${report.totalPoints})`
      : `score ${report.score}/${report.totalPoints} (pass mark ${report.passScore}): ${report.passed ? "PASSED" : "FAILED"}`,
  );
  for (const s of report.sections) log(`  ${s.section}: ${s.points}/${s.maxPoints}`);
  if (report.certification)
    log(`certificate ${report.certification.code}, valid until ${report.certification.expiresAt}`);
  return report;
}
