import net from "node:net";

/**
 * A TCP proxy on loopback (a free port) in front of a server (PostgreSQL in the outage tests), that
 * a test can make stop answering: stall() keeps every connection, old and new, open but forwards
 * nothing either way, as a failover or a stalled network does to a client (the sockets look alive,
 * no byte arrives, no error is raised). release() lets traffic flow again: the bytes held meanwhile
 * go on (`resume`, the network came back), or the connections of the stall are cut (`drop`, the old
 * primary is gone) while new ones work.
 */
export interface TcpStallProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** `url` with its host and port replaced by the proxy's (e.g. a postgres:// URL). */
  urlThrough(url: string): string;
  stall(): void;
  release(options?: { drop?: boolean }): void;
  readonly stalled: boolean;
  /** Connections open now (client side). */
  readonly connections: number;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  /** Bytes held during a stall, per direction. */
  toUpstream: Buffer[];
  toClient: Buffer[];
  /** Opened or used while stalled: cut on release({ drop: true }). */
  stalledIn: boolean;
}

export async function startTcpStallProxy(target: { host: string; port: number }): Promise<TcpStallProxy> {
  const pairs = new Set<Pair>();
  let stalled = false;

  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const pair: Pair = { client, upstream, toUpstream: [], toClient: [], stalledIn: stalled };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (chunk) => {
      if (stalled) {
        pair.stalledIn = true;
        pair.toUpstream.push(chunk);
      } else upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (stalled) {
        pair.stalledIn = true;
        pair.toClient.push(chunk);
      } else client.write(chunk);
    });
    // A side that goes away takes the other with it, except during a stall: then nothing, not even
    // the close, gets through (a half-open connection), until release.
    const closed = () => {
      if (!stalled) end();
      else pair.stalledIn = true;
    };
    client.on("close", () => end());
    upstream.on("close", closed);
    client.on("error", () => end());
    upstream.on("error", closed);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    urlThrough(url) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    stall() {
      stalled = true;
      for (const pair of pairs) pair.stalledIn = true;
    },
    release(options = {}) {
      stalled = false;
      for (const pair of [...pairs]) {
        if (options.drop && pair.stalledIn) {
          pairs.delete(pair);
          pair.client.destroy();
          pair.upstream.destroy();
          continue;
        }
        pair.stalledIn = false;
        if (pair.upstream.destroyed) {
          pairs.delete(pair);
          pair.client.destroy();
          continue;
        }
        for (const chunk of pair.toUpstream.splice(0)) pair.upstream.write(chunk);
        for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
      }
    },
    get stalled() {
      return stalled;
    },
    get connections() {
      return pairs.size;
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
