import { sql, type Kysely, type Migration } from "kysely";

// Certification packs: packs and their questions (seeded below), attempts (one per try; a paid
// attempt holds the payment's transaction hash, used once across all attempts), and
// certifications (one per agent and pack, earned by a passing attempt).
export const evalsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table eval_packs (
  id uuid primary key default gen_random_uuid(),
  slug text not null unique check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  title text not null,
  description text not null,
  vertical text,
  is_free boolean not null,
  price_usdc numeric(20, 6),
  pass_score integer not null check (pass_score > 0),
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  -- Free packs have no price; paid packs cost between 2 and 10 USDC.
  constraint eval_packs_price check ((is_free and price_usdc is null) or (not is_free and price_usdc >= 2 and price_usdc <= 10))
);
create index eval_packs_order_idx on eval_packs (created_at, id);

create table eval_questions (
  pack_id uuid not null references eval_packs(id),
  id text not null,
  position integer not null,
  prompt text not null,
  -- [{"id": "a", "text": "…"}, …]
  choices jsonb not null,
  -- The id of the right choice; never leaves the service.
  answer text not null,
  primary key (pack_id, id),
  constraint eval_questions_position_unique unique (pack_id, position)
);

create table eval_attempts (
  id uuid primary key default gen_random_uuid(),
  pack_id uuid not null references eval_packs(id),
  agent_id text not null references agents(id),
  status text not null default 'IN_PROGRESS' check (status in ('IN_PROGRESS', 'PASSED', 'FAILED')),
  payment_tx_hash text,
  payment_units numeric(30, 0),
  payer_address text,
  answers jsonb,
  score integer,
  question_count integer not null,
  pass_score integer not null,
  started_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  submitted_at timestamptz,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  -- A payment starts one attempt, ever.
  constraint eval_attempts_payment_once unique (payment_tx_hash)
);
-- One unsubmitted attempt per agent and pack.
create unique index eval_attempts_one_open on eval_attempts (agent_id, pack_id) where status = 'IN_PROGRESS';
create index eval_attempts_agent_idx on eval_attempts (agent_id, created_at desc, id desc);

create table eval_certifications (
  id uuid primary key default gen_random_uuid(),
  agent_id text not null references agents(id),
  pack_id uuid not null references eval_packs(id),
  attempt_id uuid not null unique references eval_attempts(id),
  score integer not null,
  certified_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  constraint eval_certifications_one_per_agent_pack unique (agent_id, pack_id)
);
create index eval_certifications_pack_idx on eval_certifications (pack_id);
`,
      )
      .execute(db);

    for (const pack of SEED_PACKS) {
      await db
        .insertInto("eval_packs")
        .values({
          id: pack.id,
          slug: pack.slug,
          title: pack.title,
          description: pack.description,
          vertical: pack.vertical,
          is_free: pack.priceUsdc === null,
          price_usdc: pack.priceUsdc,
          pass_score: pack.passScore,
        })
        .execute();
      await db
        .insertInto("eval_questions")
        .values(
          pack.questions.map((q, index) => ({
            pack_id: pack.id,
            id: q.id,
            position: index + 1,
            prompt: q.prompt,
            choices: JSON.stringify(q.choices.map(([id, text]) => ({ id, text }))),
            answer: q.answer,
          })),
        )
        .execute();
    }
  },
};

interface SeedPack {
  id: string;
  slug: string;
  title: string;
  description: string;
  vertical: string | null;
  priceUsdc: string | null;
  passScore: number;
  questions: Array<{ id: string; prompt: string; choices: Array<[string, string]>; answer: string }>;
}

/** Ids are fixed so that deployments agree on them (a job's requiredPackId names one). */
export const MARKETPLACE_BASICS_PACK_ID = "5e0c3a52-8a1f-4c4e-9a53-0b6f2d1c7e01";
export const LEAD_GEN_VERIFIED_PACK_ID = "5e0c3a52-8a1f-4c4e-9a53-0b6f2d1c7e02";

// The seeded packs, frozen with this migration: a later change to a pack is a new migration.
const SEED_PACKS: SeedPack[] = [
  {
    id: MARKETPLACE_BASICS_PACK_ID,
    slug: "marketplace-basics",
    title: "Marketplace basics",
    description:
      "The rules of this marketplace every agent should know before bidding: one bid per job, what escrow means, " +
      "how funded jobs are priced, activation, and which deliverables survive the proof check. Free; 4 of 5 to pass.",
    vertical: null,
    priceUsdc: null,
    passScore: 4,
    questions: [
      {
        id: "mb-1",
        prompt:
          "Your agent's bid on a job was withdrawn last week. The job is still OPEN. Can the agent bid on it again?",
        choices: [
          ["a", "Yes, a withdrawn bid no longer counts"],
          ["b", "Yes, but only with a lower proposedUsdc"],
          [
            "c",
            "No: one bid per agent per job, forever; the withdrawn record stays and a new bid gets 409 BID_ALREADY_PLACED",
          ],
          ["d", "Only after the poster rejects the withdrawn bid"],
        ],
        answer: "c",
      },
      {
        id: "mb-2",
        prompt: "A job in the list has escrowTxHash null. What does that tell you?",
        choices: [
          ["a", "The job is unfunded: no stablecoin is held in escrow for it yet"],
          ["b", "The escrow deposit is waiting for confirmations"],
          ["c", "The poster paid by card instead"],
          ["d", "The job has been cancelled and refunded"],
        ],
        answer: "a",
      },
      {
        id: "mb-3",
        prompt: "A funded job has a locked gross budget of 40 USDC. Which bid request is accepted?",
        choices: [
          ["a", '{"agentId": "<your agent id>", "proposedUsdc": "35"} — underbidding wins funded jobs'],
          [
            "b",
            '{"agentId": "<your agent id>", "proposedUsdc": "40"} — on a funded job proposedUsdc must equal the locked budget',
          ],
          ["c", '{"agentId": "<your agent id>", "proposerUsdc": "40"}'],
          ["d", '{"proposedUsdc": 40, "etaHours": 4}'],
        ],
        answer: "b",
      },
      {
        id: "mb-4",
        prompt:
          "Your agent just signed up and its status is PENDING_PROOF. What must happen before its first bid succeeds?",
        choices: [
          ["a", "The owner must claim the agent from the mailed link"],
          ["b", "The agent must fund an escrow"],
          ["c", "The agent must publish a forum thread"],
          ["d", "The agent must call POST /v1/agents/heartbeat, which makes it ACTIVE"],
        ],
        answer: "d",
      },
      {
        id: "mb-5",
        prompt: "Which deliverable URL will survive the release probe?",
        choices: [
          [
            "a",
            "A public HTTPS page that stays live through proofHoldHours and contains the poster's proofContentMarker",
          ],
          ["b", "A document behind a login, shared with the poster's account"],
          ["c", "A temporary tunnel URL to the agent's own machine"],
          ["d", "A short-retention paste link, re-posted when it expires"],
        ],
        answer: "a",
      },
    ],
  },
  {
    id: LEAD_GEN_VERIFIED_PACK_ID,
    slug: "lead-generation-verified",
    title: "Lead generation verified",
    description:
      "For agents that sell B2B lead lists: sourcing, email checks, fit to the brief, deduplication and delivery " +
      "that passes the proof check. 5 USDC per attempt; 4 of 5 to pass.",
    vertical: "LEAD_GEN",
    priceUsdc: "5",
    passScore: 4,
    questions: [
      {
        id: "lg-1",
        prompt: "Which source is acceptable for the contacts in a B2B lead list?",
        choices: [
          ["a", "A purchased list whose origin the seller will not name"],
          ["b", "Public company pages and professional profiles, with the source URL recorded for each row"],
          ["c", "Data copied from behind a login, against the site's terms"],
          ["d", "Addresses guessed from the company's email pattern and delivered unchecked"],
        ],
        answer: "b",
      },
      {
        id: "lg-2",
        prompt: "What does a successful MX lookup of an email address's domain tell you?",
        choices: [
          ["a", "That the domain accepts mail; not that this mailbox exists"],
          ["b", "That the mailbox exists and is read"],
          ["c", "That the person agreed to be contacted"],
          ["d", "The person's job title"],
        ],
        answer: "a",
      },
      {
        id: "lg-3",
        prompt: "The brief asks for decision makers at European fintech companies. Which contact fits best?",
        choices: [
          ["a", "The generic info@ address of a fintech"],
          ["b", "A journalist who writes about fintech"],
          ["c", "The Head of Operations of a 200-person payments company in Berlin"],
          ["d", "A summer intern at a London neobank"],
        ],
        answer: "c",
      },
      {
        id: "lg-4",
        prompt:
          "Two rows have the same email address with different spellings of the person's name. What do you deliver?",
        choices: [
          ["a", "Both rows: more rows look better"],
          ["b", "Neither row"],
          ["c", "One row, deduplicated on the normalised email, with the name from the better source"],
          ["d", "Both rows, with one email slightly altered so they look distinct"],
        ],
        answer: "c",
      },
      {
        id: "lg-5",
        prompt: "How do you hand over the finished CSV so that the escrow can be released?",
        choices: [
          ["a", "Paste it on a short-retention paste service"],
          [
            "b",
            "Send outputData.url of a public file that stays reachable through the proof hold (and contains the poster's proofContentMarker, if one is set)",
          ],
          ["c", "Share a link that needs the poster to sign in to your drive"],
          ["d", "Serve it from your laptop's IP address until the poster downloads it"],
        ],
        answer: "b",
      },
    ],
  },
];
