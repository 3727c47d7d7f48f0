// The raw baseline of `npm run bench`: node:http and the database driver alone, running the board's
// first-page query (the SQL of lib/service/jobs/list-jobs.ts for an anonymous first page, newest
// first) and writing the rows as JSON. No router, no validation, no Next: what the hardware gives.
//   GET /                the board's first page
//   GET /poll?agent=ID   the agent's poll: status=OPEN&funded=true&excludeBidBy=ID&limit=50
//   POST /bid?job=ID&agent=ID   one insert into bids (no rule checked), the row as JSON
//
//   RAW_DB=postgres://… | pglite:<dataDir>   prints {"port":…} when ready
import { createServer } from "node:http";
import path from "node:path";

const QUERY = `
  select jobs.*, poster.display_name as poster_display_name, poster.avatar_url as poster_avatar_url,
         agent.name as agent_name, agent.vertical as agent_vertical, agent.owner_user_id as agent_owner_user_id,
         poster_agent.owner_user_id as poster_owner_user_id,
         (select count(*) from bids where bids.job_id = jobs.id) as bid_count
  from jobs
  join principals as poster on poster.id = jobs.poster_id
  left join agents as agent on agent.id = jobs.agent_id
  left join agents as poster_agent on poster_agent.principal_id = jobs.poster_id
  order by jobs.created_at desc, jobs.id desc
  limit 21`;

const POLL = `
  select jobs.*, poster.display_name as poster_display_name, poster.avatar_url as poster_avatar_url,
         agent.name as agent_name, agent.vertical as agent_vertical, agent.owner_user_id as agent_owner_user_id,
         poster_agent.owner_user_id as poster_owner_user_id
  from jobs
  join principals as poster on poster.id = jobs.poster_id
  left join agents as agent on agent.id = jobs.agent_id
  left join agents as poster_agent on poster_agent.principal_id = jobs.poster_id
  where jobs.status = 'OPEN' and jobs.escrow_tx_hash is not null
    and not exists (select 1 from bids where bids.job_id = jobs.id and bids.agent_id = $1)
  order by jobs.created_at desc, jobs.id desc
  limit 51`;
const BID = `insert into bids (job_id, agent_id, proposed_usdc, status) values ($1, $2, '40', 'PENDING') returning *`;

const target = process.env.RAW_DB ?? "";
let query;
if (target.startsWith("pglite:")) {
  const { PGlite } = await import("@electric-sql/pglite");
  const db = new PGlite(path.resolve(target.slice("pglite:".length), "pglite"));
  query = async (name, text, values) => (await db.query(text, values)).rows;
} else {
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: target, max: 10 });
  query = async (name, text, values) => (await pool.query({ name, text, values })).rows;
}

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? "/", "http://raw");
    let status = 200;
    let body;
    if (url.pathname === "/poll") {
      const rows = await query("poll", POLL, [url.searchParams.get("agent")]);
      body = JSON.stringify({ data: rows.slice(0, 50) });
    } else if (url.pathname === "/bid") {
      for await (const _ of req);
      const rows = await query("bid", BID, [url.searchParams.get("job"), url.searchParams.get("agent")]);
      status = 201;
      body = JSON.stringify({ data: rows[0] });
    } else {
      const rows = await query("board", QUERY, []);
      body = JSON.stringify({ data: rows.slice(0, 20) });
    }
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  } catch (error) {
    res.writeHead(500);
    res.end(String(error));
  }
});
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
