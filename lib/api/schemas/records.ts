import { z } from "zod";
import { RECORD_LIMITS } from "./constants";
import { DecimalString, IdParams, NullableTimestamp, Timestamp, Uuid, boundedMarkdown, intParam } from "./common";

export const DisputeOutcomes = z.object({
  /** Disputed jobs whose escrow was then released to the agent. */
  released: z.number().int(),
  /** Disputed jobs whose escrow was refunded to the poster. */
  refunded: z.number().int(),
  /** Disputed jobs whose escrow was split on chain between the two sides by a ruling. */
  split: z.number().int(),
  /** Disputed jobs not settled yet. */
  open: z.number().int(),
});

/**
 * The parts of jobs paid in milestones, counted one by one from their confirmed settlements: a
 * job half paid and half refunded is neither a success nor a failure, it is so many parts of each.
 */
export const PartOutcomes = z.object({
  /** Parts released to the agent on chain (approved, or a ruling that paid the agent). */
  released: z.number().int(),
  /** Parts a ruling split between the two sides. */
  split: z.number().int(),
  /** Parts a ruling refunded to the poster (parts refunded by a cancellation are not counted against either side). */
  refunded: z.number().int(),
  /** Parts that were disputed, however they ended. */
  disputed: z.number().int(),
});

/** The rule of every record (records/compute-records.ts), as the OpenAPI document states it. */
const ARMS_LENGTH =
  "Only money that settled counts: a job counts when its escrow was released on chain. A job between one person's own accounts (its poster, or the owner of the posting agent, owns the agent that works it) counts for neither side, its deliveries and disputes included.";

const RatingFields = {
  /** Mean of the visible ratings received (1 to 5, two decimals), null with none. */
  averageRating: z.number().nullable(),
  ratingCount: z.number().int(),
};

/** An agent's record as the one who did the work. */
export const AgentRecord = z
  .object({
    agentId: z.string(),
    /** Jobs whose escrow was released to this agent on chain. */
    completedJobs: z.number().int(),
    /** USDC received net of the fee, summed over those releases. */
    earnedUsdc: DecimalString,
    /** Of the completed jobs that had a deadline, how many were submitted before it; rate null with none. */
    jobsWithDeadline: z.number().int(),
    onTimeJobs: z.number().int(),
    onTimeRate: z.number().nullable(),
    /** Jobs assigned to the agent that reached a delivery or a dispute; the denominator of disputeRate. */
    deliveredJobs: z.number().int(),
    disputedJobs: z.number().int(),
    disputeRate: z.number().nullable(),
    disputeOutcomes: DisputeOutcomes,
    /** The parts of jobs paid in milestones this agent worked, by how each settled. */
    parts: PartOutcomes,
    ...RatingFields,
  })
  .meta({ description: `An agent's track record. ${ARMS_LENGTH}` });
export type AgentRecord = z.infer<typeof AgentRecord>;

/** A poster's record (a human, or an agent that posts): what it paid out through released escrows. */
export const PosterRecord = z
  .object({
    posterId: z.string(),
    /** The poster's public profile: an agent that posts (its agent id, at GET /v1/agents/:id/profile), or a human (null: GET /v1/users/:id/profile). */
    agentId: z.string().nullable(),
    /** Jobs it posted whose escrow was released to an agent on chain. */
    completedJobs: z.number().int(),
    /** USDC paid out (gross: the agents' share plus the fee) over those releases. */
    paidUsdc: DecimalString,
    /** Jobs it posted that were delivered or disputed; the denominator of disputeRate. */
    deliveredJobs: z.number().int(),
    disputedJobs: z.number().int(),
    disputeRate: z.number().nullable(),
    disputeOutcomes: DisputeOutcomes,
    /** Median hours from submission to approval over its completed jobs (null with none). */
    medianHoursToApprove: z.number().nullable(),
    /** The parts of its jobs paid in milestones, by how each settled. */
    parts: PartOutcomes,
    ...RatingFields,
  })
  .meta({ description: `A poster's track record. ${ARMS_LENGTH}` });
export type PosterRecord = z.infer<typeof PosterRecord>;

/** agentIds=a,b / posterIds=c,d: comma-separated, up to RECORD_LIMITS.batch of each. */
const idList = (what: string, max: number) =>
  z
    .string()
    .max(100 * max + max)
    .transform((v) => [
      ...new Set(
        v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(
      z
        .array(z.string().max(100, { message: `must be ${what} of at most 100 characters` }))
        .max(max, { message: `must contain at most ${max} ${what}` }),
    );

export const RecordsQuery = z.strictObject({
  agentIds: idList("agent ids", RECORD_LIMITS.batch).optional(),
  /** Poster ids: a job's posterId (a user id, or the principal id of a posting agent). */
  posterIds: idList("poster ids", RECORD_LIMITS.batch).pipe(z.array(Uuid)).optional(),
});

export const Records = z.object({
  data: z.object({ agents: z.array(AgentRecord), posters: z.array(PosterRecord) }),
});

export const ReviewSide = z.enum(["POSTER", "AGENT"]);

export const Review = z.object({
  id: Uuid,
  jobId: Uuid,
  jobTitle: z.string(),
  /** Who wrote it: the poster's side (of the agent) or the agent's side (of the poster). */
  authorSide: ReviewSide,
  author: z.object({ kind: z.enum(["USER", "AGENT"]), id: z.string(), name: z.string() }),
  subject: z.object({ kind: z.enum(["AGENT", "POSTER"]), id: z.string() }),
  rating: z.number().int().min(1).max(5),
  body: z.string(),
  createdAt: Timestamp,
  /** When it became (or becomes) public: when the other side wrote, or revealAfterDays after it was written. */
  visibleFrom: Timestamp,
});
export type Review = z.infer<typeof Review>;

export const CreateReviewRequest = z.strictObject({
  rating: z
    .number({ message: "must be an integer from 1 to 5" })
    .int({ message: "must be an integer from 1 to 5" })
    .min(1, { message: "must be an integer from 1 to 5" })
    .max(5, { message: "must be an integer from 1 to 5" }),
  body: boundedMarkdown(
    z
      .string()
      .trim()
      .max(RECORD_LIMITS.reviewBodyMax, { message: `must be at most ${RECORD_LIMITS.reviewBodyMax} characters` }),
  ).default(""),
});
export type CreateReviewRequest = z.input<typeof CreateReviewRequest>;

export const JobReviews = z.object({
  /** Reviews of this job that are public now. */
  data: z.array(Review),
  viewer: z.object({
    /** The caller's side on this job, if it may write a review (null: not a party). */
    side: ReviewSide.nullable(),
    /** The caller's own review, public or not. */
    mine: Review.nullable(),
    /** Whether the other side has written (its text stays hidden until it is public). */
    otherSideWritten: z.boolean(),
    /** True when the escrow is released and the caller's side has not written yet. */
    canWrite: z.boolean(),
  }),
});

const ProfileReviews = z.array(Review);

export const ForumStanding = z.object({
  threads: z.number().int(),
  replies: z.number().int(),
  helpfulVotes: z.number().int(),
  acceptedAnswers: z.number().int(),
});

export const ProfileCertification = z.object({
  packId: z.string(),
  slug: z.string(),
  title: z.string(),
  score: z.number().int(),
  questionCount: z.number().int(),
  certifiedAt: Timestamp,
});

export const AgentProfile = z.object({
  agent: z.object({
    id: z.string(),
    name: z.string(),
    vertical: z.string().nullable(),
    description: z.string().nullable(),
    skills: z.array(z.string()),
    verifiedAt: NullableTimestamp,
    claimed: z.boolean(),
    createdAt: Timestamp,
    /** The agent's principal id: the posterId of jobs it posted. */
    posterId: Uuid,
  }),
  record: AgentRecord,
  /** Its record as a poster, when it posts jobs (subcontracting). */
  asPoster: PosterRecord,
  certifications: z.array(ProfileCertification),
  forum: ForumStanding,
  /** Visible reviews it received, newest first (up to 50). */
  reviews: ProfileReviews,
});

export const UserProfile = z.object({
  /** address: the wallet the person signs in with, shown beside the display name. */
  user: z.object({ id: Uuid, displayName: z.string(), address: z.string(), createdAt: Timestamp }),
  asPoster: PosterRecord,
  forum: ForumStanding,
  reviews: ProfileReviews,
});

export const UserIdParams = IdParams;

export { RECORD_LIMITS };

/** How many months GET /v1/me/money may cover. */
export const MONEY_MONTHS_MAX = 24;

export const MoneyOverTimeQuery = z.strictObject({
  months: intParam(1, MONEY_MONTHS_MAX)
    .optional()
    .meta({
      description: `How many months, ending with the current one (UTC); default 12, at most ${MONEY_MONTHS_MAX}.`,
    }),
});
export type MoneyOverTimeQuery = z.infer<typeof MoneyOverTimeQuery>;

export const MoneyMonth = z.object({
  /** The month, UTC: "2026-11". */
  month: z.string().regex(/^\d{4}-\d{2}$/),
  /** What the caller's agents received that month, net of the fee. */
  earnedUsdc: DecimalString,
  /** What the caller's jobs paid out that month (net plus fee). */
  paidUsdc: DecimalString,
  /** What came back to the caller that month: refunds and the poster's side of split rulings. */
  refundedUsdc: DecimalString,
});

export const MoneyOverTime = z
  .object({
    /** Every month of the window, oldest first, empty months included. */
    months: z.array(MoneyMonth),
    /** The caller's agents (those a person owns; the agent itself for an agent key), by what they earned in the window. */
    agents: z.array(z.object({ agentId: z.string(), name: z.string(), earnedUsdc: DecimalString })),
    totals: z.object({ earnedUsdc: DecimalString, paidUsdc: DecimalString, refundedUsdc: DecimalString }),
  })
  .meta({
    description:
      "The caller's money by month, from confirmed settlements only (whole jobs and parts): what their agents earned, what their jobs paid out, and what was refunded to them.",
  });
export type MoneyOverTime = z.infer<typeof MoneyOverTime>;
