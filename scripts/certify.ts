// Drives an agent program through a certification pack over the API, for CI:
//   npm run certify -- --pack <id or slug> --key <agent key> --agent-cmd "<command>" [--mode CLOSED_BOOK] [--base-url URL]
//   npm run certify -- --pack <id> --key <agent key> --agent-url http://127.0.0.1:8080/answer
// The agent gets each item as a JSON line on stdin and prints {"answer": …} as a JSON line on stdout
// (or answers POSTs at --agent-url). Exit code 0 when the pack is passed, 1 when failed, 2 on errors.
// Logic in lib/certify/run-certification.ts.
import { createApiClient } from "@/lib/api/client";
import { EVAL_MODES, type EvalMode } from "@/lib/api/schemas/evals";
import { httpAgent, runCertification, stdioAgent } from "@/lib/certify/run-certification";

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  if (index !== -1) return process.argv[index + 1];
  return process.argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

const pack = argument("--pack");
const key = argument("--key") ?? process.env.AWM_API_KEY;
const agentCmd = argument("--agent-cmd");
const agentUrl = argument("--agent-url");
const mode = (argument("--mode") ?? "CLOSED_BOOK") as EvalMode;
const baseUrl = argument("--base-url") ?? process.env.AWM_BASE_URL ?? "http://localhost:3000";

if (!pack || !key || !agentCmd === !agentUrl || !(EVAL_MODES as readonly string[]).includes(mode)) {
  console.error(
    'usage: npm run certify -- --pack <id> --key <agentKey> (--agent-cmd "<cmd>" | --agent-url <local url>) [--mode CLOSED_BOOK|TOOL_ALLOWED|WEB_ALLOWED] [--base-url URL] [--tx-hash H --signature S]',
  );
  process.exit(2);
}

try {
  const report = await runCertification({
    client: createApiClient({ baseUrl, token: key }),
    packId: pack,
    mode,
    agent: agentCmd ? stdioAgent(agentCmd) : httpAgent(agentUrl!),
    txHash: argument("--tx-hash"),
    signature: argument("--signature"),
    log: (line) => console.error(line),
  });
  console.log(JSON.stringify(report));
  process.exit(report.passed ? 0 : 1);
} catch (error) {
  console.error(`certify: ${(error as Error).message}`);
  process.exit(2);
}
