// A tiny agent program for the certify command's test: reads items as JSON lines on stdin, prints
// {"answer": …} lines on stdout. It answers the demo pack (lib/testing/demo-pack.ts), whose prompts
// state their answers.
import { createInterface } from "node:readline";

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const item = JSON.parse(line);
  const n = Number(/^Item (\d+)/.exec(item.prompt)?.[1] ?? 0);
  let answer;
  if (item.kind === "MULTIPLE_CHOICE") answer = "b";
  else if (item.kind === "SHORT_ANSWER") answer = "USDC";
  else if (item.prompt.includes('"email"')) answer = { email: "ci@example.test", rows: 1 };
  else answer = { ok: true, n };
  process.stderr.write(`tiny agent: item ${item.position}\n`);
  process.stdout.write(`${JSON.stringify({ answer })}\n`);
}
