/**
 * Named prepared statements for the service's repeated queries on a PostgreSQL server.
 *
 * Kysely sends every query as an unnamed statement, so the server parses and plans it again each
 * time. For the queries an API answers all day (an agent's poll of the board, a bid) planning costs
 * more than running: about 1.5 ms of the server's CPU against 0.5 ms on 100,000 jobs. A named
 * statement is parsed once per connection, and after five runs PostgreSQL keeps a generic plan
 * when it is no worse than the custom ones (plan_cache_mode auto), so planning is paid once.
 *
 * A full-text search is never named: planned with its words, the search's tsquery is a constant
 * folded once (a generic plan computes websearch_to_tsquery again for every row it ranks: 44 ms
 * against 20 for a search matching 2,000 jobs), and the GIN index is weighed against how rare the
 * words are.
 *
 * A text is named once it has run twice (a migration or a one-off report is never kept), up to
 * MAX_NAMED texts per process: each connection holds at most that many statements, whatever a
 * client varies (an IN list of another length is another text). Only single statements that read
 * or write rows are named: transaction control and anything with a ";" (several statements, which
 * the extended protocol refuses) run as before.
 *
 * The cost of keeping them: a statement prepared before another instance's migration changed a
 * table it reads with `*` fails with "cached plan must not change result type"; GuardedClient then
 * drops the connection, so the next query runs on a fresh one. A connection pooler in transaction
 * mode (pgbouncer before 1.21) cannot keep them at all: DATABASE_PREPARED_STATEMENTS=off.
 */
export const MAX_NAMED = 500;
/** Texts seen once and not yet named; forgotten past this many. */
const MAX_SEEN = 5_000;
const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;
const FULL_TEXT = /to_tsquery\(/i;

/**
 * Whether a text may hold more than one statement: a ";" outside its line comments. A comment's
 * ";" once kept the plain bid (bids/place-bid.ts) from being named, so it was planned on every
 * bid at 1.5 ms of the server's CPU. (A "--" inside a string literal would hide a ";" after it on
 * that line; such a text then fails loudly in the extended protocol rather than run twice.)
 */
function hasSeveralStatements(text: string): boolean {
  return text.includes(";") && text.replace(/--[^\n]*/g, "").includes(";");
}

export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly seen = new Set<string>();

  /** The name this text runs under, or null to run it unnamed. */
  nameFor(text: string): string | null {
    const named = this.names.get(text);
    if (named !== undefined) return named;
    if (this.names.size >= MAX_NAMED || !NAMEABLE.test(text) || hasSeveralStatements(text) || FULL_TEXT.test(text))
      return null;
    if (!this.seen.has(text)) {
      if (this.seen.size >= MAX_SEEN) this.seen.clear();
      this.seen.add(text);
      return null;
    }
    this.seen.delete(text);
    const name = `awm_${this.names.size + 1}`;
    this.names.set(text, name);
    return name;
  }

  get size(): number {
    return this.names.size;
  }
}

/** One naming per process: every connection of every pool agrees on which name is which text. */
export const statementNames = new StatementNames();

/**
 * PostgreSQL's error for a prepared statement whose result columns changed under it (0A000
 * feature_not_supported, "cached plan must not change result type"), or that the session no longer
 * holds (26000 invalid_sql_statement_name): the connection's statements are stale.
 */
export function isStalePreparedStatement(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return (code === "0A000" && /cached plan must not change result type/.test(message ?? "")) || code === "26000";
}
