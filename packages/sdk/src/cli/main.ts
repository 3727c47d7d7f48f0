// The `awm` binary (packages/sdk/dist/cli.js once built; `npm run awm -- …` in the repository).
import { runCli } from "./run";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: readStdin,
});
// Let stdout drain (a pipe may still hold the output) before the exit code is set.
process.exitCode = code;
