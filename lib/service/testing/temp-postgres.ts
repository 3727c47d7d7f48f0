import { execFile } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A throwaway PostgreSQL primary with a streaming standby, for the replica and load-balancer
 * tests: initdb into a temporary directory, on free loopback ports, pg_basebackup -R for the
 * standby. Nothing of the machine's own clusters is touched. PostgreSQL refuses to run as root, so
 * as root the binaries run as the `postgres` user (runuser), which owns the directories.
 */
export interface TempPostgres {
  primaryUrl: string;
  replicaUrl: string;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  stop(): Promise<void>;
}

/** Where the PostgreSQL binaries are (env PG_BIN, else Debian's PostgreSQL 15), or null when absent. */
export function postgresBinaries(): string | null {
  const candidates = [process.env.PG_BIN, "/usr/lib/postgresql/15/bin"].filter((d): d is string => Boolean(d));
  return (
    candidates.find((dir) =>
      ["initdb", "pg_ctl", "pg_basebackup", "postgres"].every((b) => fs.existsSync(path.join(dir, b))),
    ) ?? null
  );
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startTempPostgres(): Promise<TempPostgres> {
  const bin = postgresBinaries();
  if (!bin) throw new Error("PostgreSQL binaries not found (set PG_BIN)");
  const asRoot = process.getuid?.() === 0;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "awm-pg-"));
  const primaryDir = path.join(root, "primary");
  const replicaDir = path.join(root, "replica");
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    fs.chownSync(root, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (name: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", path.join(bin, name), ...args]) : run(path.join(bin, name), args);

  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  await pg("initdb", ["-D", primaryDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  const common = [
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${root}'`,
    "wal_level = replica",
    "max_wal_senders = 4",
    "max_connections = 80",
    "shared_buffers = 16MB",
    "fsync = off",
    "full_page_writes = off",
  ];
  appendConf(primaryDir, [...common, `port = ${primaryPort}`]);
  const ctl = async (dir: string, action: "start" | "stop") =>
    action === "start"
      ? pg("pg_ctl", ["-D", dir, "-l", path.join(dir, "server.log"), "-w", "-t", "60", "start"])
      : pg("pg_ctl", ["-D", dir, "-m", "immediate", "-w", "stop"]).catch(() => {});
  await ctl(primaryDir, "start");
  try {
    await pg("pg_basebackup", [
      "-h",
      "127.0.0.1",
      "-p",
      String(primaryPort),
      "-U",
      "postgres",
      "-D",
      replicaDir,
      "-R",
      "-X",
      "stream",
      "--no-sync",
    ]);
    appendConf(replicaDir, [`port = ${replicaPort}`]);
    await ctl(replicaDir, "start");
  } catch (error) {
    await ctl(primaryDir, "stop");
    throw error;
  }
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
    replicaUrl: `postgres://postgres@127.0.0.1:${replicaPort}/postgres`,
    stopReplica: async () => {
      await ctl(replicaDir, "stop");
    },
    startReplica: async () => {
      await ctl(replicaDir, "start");
    },
    stop: async () => {
      await ctl(replicaDir, "stop");
      await ctl(primaryDir, "stop");
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Appends settings to a cluster's postgresql.conf (the last setting of a name wins), as its owner. */
function appendConf(dir: string, lines: string[]): void {
  const file = path.join(dir, "postgresql.conf");
  const stat = fs.statSync(file);
  fs.appendFileSync(file, `\n${lines.join("\n")}\n`);
  fs.chownSync(file, stat.uid, stat.gid);
}
