// `npm run cluster`: two app instances on one PostgreSQL (DATABASE_URL, and its replicas in
// DATABASE_REPLICA_URL when set) behind HAProxy, as docs/deployment.md draws it. The balancer
// listens on PORT (default 3000); INSTANCES picks how many app instances (default 2). On the local
// chain (no RPC_URL) anvil is started as `npm start` does.
import path from "node:path";
import { ensureBuild } from "./build-cache";
import { startCluster } from "./cluster-stack";
import { choosePort, PortError, startLocalChain } from "./stack";

async function main() {
  if (!process.env.DATABASE_URL) {
    throw new PortError(
      "DATABASE_URL is required: the instances share one PostgreSQL (e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/awm npm run cluster)",
    );
  }
  const count = Number(process.env.INSTANCES || 2);
  if (!Number.isInteger(count) || count < 1)
    throw new PortError(`INSTANCES=${process.env.INSTANCES} is not a positive whole number`);
  const dataDir = path.resolve(process.env.DATA_DIR || ".data");
  const port = await choosePort({ envName: "PORT", defaultPort: 3000, what: "the load balancer" });
  const useLocalChain = (process.env.CHAIN ?? "local") === "local" && !process.env.RPC_URL;
  const anvilPort = useLocalChain
    ? await choosePort({ envName: "ANVIL_PORT", defaultPort: 8545, what: "the local chain (anvil)" })
    : 0;
  const chain = useLocalChain ? await startLocalChain({ port: anvilPort, dataDir, persist: true }) : null;
  const siteUrl = process.env.SITE_URL || `http://localhost:${port}`;

  const distDir = ensureBuild(process.env.NEXT_DIST_DIR ? [process.env.NEXT_DIST_DIR] : [".next", ".next-alt"]);
  const cluster = await startCluster({
    port,
    count,
    distDir,
    env: {
      DATA_DIR: dataDir,
      SITE_URL: siteUrl,
      ...(chain ? { RPC_URL: chain.rpcUrl, ANVIL_PORT: String(anvilPort) } : {}),
    },
  });
  const replicas = (process.env.DATABASE_REPLICA_URL ?? "").split(",").filter((s) => s.trim()).length;
  console.log(
    `\n  ${count} app instances (${cluster.instances.map((i) => i.url).join(", ")}) behind HAProxy: ${siteUrl}\n` +
      `  PostgreSQL: DATABASE_URL${replicas > 0 ? ` with ${replicas} read replica(s) (DATABASE_REPLICA_URL)` : ", no read replica"}\n` +
      `  Health: ${siteUrl}/v1/health (replica lag under database.replicas)\n`,
  );

  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await cluster.stop();
    await chain?.stop();
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));
  // The balancer itself is the one thing the cluster cannot do without.
  cluster.haproxy.process.on("exit", () => void shutdown(1));
  for (const instance of cluster.instances) {
    instance.process.on("exit", (code) => {
      if (!stopping)
        console.error(
          `[cluster] the instance on ${instance.url} exited (${code}); HAProxy sends its requests to the others`,
        );
    });
  }
}

main().catch((error) => {
  if (error instanceof PortError) {
    console.error(`[cluster] ${error.message}`);
    process.exit(1);
  }
  console.error("[cluster] failed:", error);
  process.exit(1);
});
