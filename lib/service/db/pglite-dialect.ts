import type { PGlite, Results } from "@electric-sql/pglite";
import { isStalePreparedStatement, StatementNames } from "./prepared-statements";
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from "kysely";

/** PGlite's protocol serialiser and result parser, loaded with PGlite itself (never on PostgreSQL), once. */
let pgliteModule: Promise<typeof import("@electric-sql/pglite")> | undefined;
const loadPglite = () => (pgliteModule ??= import("@electric-sql/pglite"));

/** Protocol messages sent together in one exchange with PGlite. */
function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

// PGlite is one in-process connection. Kysely expects a pool, so this driver hands out that one
// connection to one holder at a time: a transaction keeps it until commit or rollback, and every
// other query waits its turn. Without the queue, two requests' statements would interleave inside
// one another's transactions.
class SingleConnectionQueue {
  private tail: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const turn = this.tail.then(() => release);
    this.tail = this.tail.then(() => held);
    return turn;
  }
}

class PGliteConnection implements DatabaseConnection {
  /** Which texts run as named statements (prepared-statements.ts), and each one's parameter types. */
  private readonly names = new StatementNames();
  private readonly prepared = new Map<string, number[]>();
  /**
   * Each statement's result parsers: only its columns' types. PGlite's parseResults copies the
   * parsers it is given on every call, and the instance's hold every type it knows.
   */
  private readonly resultParsers = new Map<string, PGlite["parsers"]>();

  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // Parameterless statements go through the simple protocol so that a migration may hold
    // several statements; everything with parameters uses the extended protocol.
    if (compiled.parameters.length === 0 && /;\s*\S/.test(compiled.sql)) {
      await this.pglite.exec(compiled.sql);
      return { rows: [] };
    }
    const name = this.names.nameFor(compiled.sql);
    const result = name
      ? await this.runNamed<R>(name, compiled.sql, compiled.parameters)
      : await this.pglite.query<R>(compiled.sql, compiled.parameters as unknown[]);
    const affected = result.affectedRows ?? 0;
    return {
      rows: result.rows,
      numAffectedRows: BigInt(affected),
    };
  }

  /**
   * A repeated query as a named prepared statement, as on a PostgreSQL server (db/connection.ts):
   * PGlite's query() parses and plans every statement again, which in WebAssembly costs more than
   * running most of them (2 ms of planning against 0.2 ms for a bid's read). Prepared once with its
   * parameter types, then each run is one exchange: bind, describe, execute, sync; its messages are
   * read by PGlite's own result parser with the instance's type parsers and serialisers.
   */
  private async runNamed<R>(name: string, text: string, parameters: readonly unknown[]): Promise<Results<R>> {
    const { parse, protocol } = await loadPglite();
    let types = this.prepared.get(name);
    if (!types) {
      const described = await this.pglite.execProtocol(
        concat([
          protocol.serialize.parse({ name, text }),
          protocol.serialize.describe({ type: "S", name }),
          protocol.serialize.sync(),
        ]),
      );
      types = parse.parseDescribeStatementResults(described.messages);
      this.prepared.set(name, types);
    }
    const values = parameters.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serialize = this.pglite.serializers[types[i]!];
      return serialize ? serialize(value) : String(value);
    });
    try {
      const ran = await this.pglite.execProtocol(
        concat([
          protocol.serialize.bind({ statement: name, values }),
          protocol.serialize.describe({ type: "P" }),
          protocol.serialize.execute({}),
          protocol.serialize.sync(),
        ]),
      );
      let parsers = this.resultParsers.get(name);
      if (!parsers) {
        const described = ran.messages.find((m) => m.name === "rowDescription") as
          { fields: Array<{ dataTypeID: number }> } | undefined;
        parsers = Object.fromEntries(
          (described?.fields ?? [])
            .map((field) => [field.dataTypeID, this.pglite.parsers[field.dataTypeID]] as const)
            .filter(([, parser]) => parser !== undefined),
        );
        this.resultParsers.set(name, parsers);
      }
      return parse.parseResults(ran.messages, parsers)[0] as Results<R>;
    } catch (error) {
      // A table changed under the statement ("cached plan must not change result type"): it is
      // dropped, so the next run prepares it afresh; this one answers as a stale statement does on
      // a server (503, retry).
      if (isStalePreparedStatement(error)) {
        this.prepared.delete(name);
        this.resultParsers.delete(name);
        await this.pglite
          .execProtocol(concat([protocol.serialize.close({ type: "S", name }), protocol.serialize.sync()]))
          .catch(() => {});
      }
      throw error;
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming is not supported on PGlite");
  }
}

class PGliteDriver implements Driver {
  private readonly queue = new SingleConnectionQueue();
  private readonly releases = new WeakMap<DatabaseConnection, () => void>();
  private connection!: PGliteConnection;

  constructor(private readonly pglite: PGlite) {}

  async init(): Promise<void> {
    await this.pglite.waitReady;
    this.connection = new PGliteConnection(this.pglite);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.queue.acquire();
    this.releases.set(this.connection, release);
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin"));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const release = this.releases.get(connection);
    this.releases.delete(connection);
    release?.();
  }

  async destroy(): Promise<void> {
    await this.pglite.close();
  }
}

export class PGliteDialect implements Dialect {
  constructor(private readonly pglite: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite);
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}
