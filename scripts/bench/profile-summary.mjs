// Summarises V8 CPU profiles (node --cpu-prof; `BENCH_CPU_PROF=<dir> npm run bench` writes one per
// app process): the functions with the most self time, and the share of time by package, so a
// missed target says where the time went.   node scripts/bench/profile-summary.mjs <dir-or-files…>
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const files = process.argv.slice(2).flatMap((p) =>
  statSync(p).isDirectory()
    ? readdirSync(p)
        .filter((f) => f.endsWith(".cpuprofile"))
        .map((f) => path.join(p, f))
    : [p],
);
const self = new Map();
const byPackage = new Map();
let total = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = new Map();
  for (let i = 0; i < profile.samples.length; i++)
    dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  for (const [id, us] of dt) {
    const { callFrame } = nodes.get(id);
    if (callFrame.functionName === "(idle)") continue;
    total += us;
    const where = callFrame.url
      .replace(/^file:\/\//, "")
      .replace(/.*node_modules\//, "")
      .replace(process.cwd() + "/", "");
    const key = `${callFrame.functionName || "(anonymous)"}  ${where}:${callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + us);
    const pkg = !where
      ? callFrame.functionName
      : where.startsWith("node:")
        ? "node internals"
        : (where.match(/^(@[^/]+\/[^/]+|[^/]+)/)?.[1] ?? where);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  }
}
const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
console.log(
  `${files.length} profile(s), ${(total / 1e6).toFixed(1)} s of CPU (idle excluded)\n\nby package or source:`,
);
for (const [k, us] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${pct(us)}  ${k}`);
console.log("\nfunctions by self time:");
for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${pct(us)}  ${k}`);
