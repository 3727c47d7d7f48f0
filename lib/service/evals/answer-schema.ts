import { Worker } from "node:worker_threads";
import { HttpError } from "../http/errors";

/**
 * Publishers' JSON Schemas (a STRUCTURED item's answerSchema) are text a stranger wrote, run against
 * answers another stranger sent. Three rules keep one of them from holding the service:
 *
 * 1. Bounds, checked here on the main thread in one iterative pass before anything compiles: at most
 *    ANSWER_SCHEMA_LIMITS.maxBytes of JSON, maxDepth levels of nesting, maxMembers object keys and
 *    array elements in all. Compiling is roughly linear in the members (an `anyOf` of 2,500
 *    properties took Ajv 11.5 s); the bounds keep an honest schema (tens of members) far inside.
 * 2. Ajv compiles and validates in a worker thread (node:worker_threads), never on the event loop,
 *    each job under a time limit: a job over it has its worker terminated (and a fresh one started for
 *    the next). A pack's schemas are checked at publishing within CHECK_TIME_LIMIT_MS; an answer is
 *    graded within GRADE_TIME_LIMIT_MS, and one that cannot be graded in time scores nothing (e.g.
 *    uniqueItems over 18,000 distinct objects, quadratic in Ajv).
 * 3. `pattern` and `patternProperties` run on RE2JS (re2js, a pure JavaScript port of RE2): matching is
 *    linear in the answer, so `^([a-zA-Z0-9]+\s?)+$` cannot backtrack (it took V8's engine 18.7 s on
 *    "a"×29 + "!"). RE2 has no lookaround or backreferences: a pattern with them is refused at
 *    publishing with RE2's reason.
 * Ajv's logger is off (it wrote megabytes of warnings per request), and each schema gets an Ajv of
 * its own, so no schema (an `$id`) can shadow or pile up in another's.
 *
 * The worker is loaded from source text (eval), so no bundler has to find a worker file; it
 * requires ajv and re2js from the app's node_modules (the process's working directory, as
 * `npm start` and the tests run it). One worker per process; jobs queue in order.
 */
export const ANSWER_SCHEMA_LIMITS = { maxBytes: 16 * 1024, maxDepth: 12, maxMembers: 300 } as const;
export const CHECK_TIME_LIMIT_MS = 5_000;
export const GRADE_TIME_LIMIT_MS = 1_000;
/** Jobs waiting for the worker; past this a request is told to come back (503) instead of queueing. */
const MAX_QUEUED = 64;

const WORKER_SOURCE = String.raw`
const { parentPort } = require("node:worker_threads");
const { Ajv } = require("ajv");
const { RE2JS } = require("re2js");

function linearRegExp(pattern) {
  const rx = RE2JS.compile(RE2JS.translateRegExp(pattern));
  return { test: (text) => rx.test(text), toString: () => "re2:" + pattern };
}
linearRegExp.code = "linearRegExp";

const compiled = new Map();
function validatorFor(schema) {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    const ajv = new Ajv({ strict: true, allErrors: false, validateFormats: false, logger: false, code: { regExp: linearRegExp } });
    validate = ajv.compile(schema);
    if (compiled.size >= 200) compiled.delete(compiled.keys().next().value);
    compiled.set(key, validate);
  }
  return validate;
}

parentPort.postMessage({ ready: true });
parentPort.on("message", (job) => {
  if (job.op === "check") {
    const problems = job.schemas.map((schema) => {
      try {
        validatorFor(schema);
        return null;
      } catch (error) {
        return error && error.message ? String(error.message) : String(error);
      }
    });
    parentPort.postMessage({ id: job.id, problems });
  } else {
    let validate;
    try {
      validate = validatorFor(job.schema);
    } catch {
      parentPort.postMessage({ id: job.id, valid: false });
      return;
    }
    parentPort.postMessage({ id: job.id, valid: validate(job.value) === true });
  }
});
`;

type Job = { op: "check"; schemas: unknown[] } | { op: "grade"; schema: unknown; value: unknown };
type Outcome = { timedOut: true } | { timedOut: false; reply: { problems?: (string | null)[]; valid?: boolean } };

interface Pending {
  id: number;
  job: Job;
  timeLimitMs: number;
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

class SchemaWorker {
  private worker: Worker | null = null;
  /** The worker has loaded Ajv and RE2JS: a job's time runs from its dispatch, never from a start-up. */
  private ready = false;
  private running: (Pending & { timer: ReturnType<typeof setTimeout> }) | null = null;
  private readonly queue: Pending[] = [];
  private nextId = 1;

  run(job: Job, timeLimitMs: number): Promise<Outcome> {
    if (this.queue.length >= MAX_QUEUED) {
      throw new HttpError(
        503,
        "answer schemas are being checked for many requests at once; retry in a few seconds",
        "SERVICE_BUSY",
        { retryAfter: 5 },
        { "retry-after": "5" },
      );
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, job, timeLimitMs, resolve, reject });
      this.pump();
    });
  }

  private spawn(): Worker {
    // A hostile schema may also try memory: the worker's heap is capped, and running out ends only it.
    const worker = new Worker(WORKER_SOURCE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 256 } });
    worker.unref();
    worker.on("message", (reply: { id: number; ready?: true; problems?: (string | null)[]; valid?: boolean }) => {
      if (reply.ready) {
        if (this.worker === worker) this.ready = true;
        this.pump();
        return;
      }
      const current = this.running;
      if (!current || current.id !== reply.id) return;
      clearTimeout(current.timer);
      this.running = null;
      current.resolve({ timedOut: false, reply });
      this.pump();
    });
    const fail = (error: unknown) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.ready = false;
      const current = this.running;
      this.running = null;
      if (current) {
        clearTimeout(current.timer);
        // Out of memory is the job's fault, like running out of time; anything else is a bug.
        if ((error as { code?: string } | null)?.code === "ERR_WORKER_OUT_OF_MEMORY")
          current.resolve({ timedOut: true });
        else
          current.reject(
            error instanceof Error ? error : new Error(`the answer schema worker stopped (${String(error)})`),
          );
      }
      this.pump();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the answer schema worker exited with code ${code}`)));
    return worker;
  }

  private pump() {
    if (this.running) return;
    if (this.queue.length === 0) return;
    if (!this.worker) {
      this.ready = false;
      this.worker = this.spawn();
    }
    if (!this.ready) return;
    const next = this.queue.shift()!;
    const worker = this.worker;
    const timer = setTimeout(() => {
      if (this.running?.id !== next.id) return;
      // Over its time: the worker is stopped where it is (terminate interrupts running JavaScript)
      // and the next job gets a fresh one.
      this.running = null;
      void worker.terminate();
      // The replacement starts now, so the next job does not wait for its start-up.
      this.ready = false;
      this.worker = this.spawn();
      next.resolve({ timedOut: true });
      this.pump();
    }, next.timeLimitMs);
    this.running = { ...next, timer };
    worker.postMessage({ id: next.id, ...next.job });
  }
}

let shared: SchemaWorker | undefined;
const schemaWorker = () => (shared ??= new SchemaWorker());

/**
 * Why a schema is outside the bounds (empty: inside), each problem prefixed with `path`. One walk
 * with its own stack; it stops at the first bound passed, so its cost is bounded by the bounds.
 */
export function answerSchemaBoundProblems(schema: unknown, path: string): string[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    return [`${path} must be a JSON Schema object`];
  const { maxBytes, maxDepth, maxMembers } = ANSWER_SCHEMA_LIMITS;
  let members = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value: schema, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value !== "object" || value === null) continue;
    if (depth > maxDepth) return [`${path} nests deeper than ${maxDepth} levels`];
    const children = Array.isArray(value) ? value : Object.values(value);
    members += children.length;
    if (members > maxMembers)
      return [`${path} has more than ${maxMembers} members (object keys and array elements, all levels counted)`];
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
  const bytes = Buffer.byteLength(JSON.stringify(schema));
  if (bytes > maxBytes) return [`${path} is ${bytes} bytes of JSON; at most ${maxBytes} are allowed`];
  return [];
}

/**
 * Why each schema cannot grade answers, as "<path> ..." lines (empty: all can). The bounds first;
 * then every schema inside them is compiled in the worker within CHECK_TIME_LIMIT_MS in all.
 */
export async function answerSchemaProblems(schemas: Array<{ schema: unknown; path: string }>): Promise<string[]> {
  const problems = schemas.flatMap(({ schema, path }) => answerSchemaBoundProblems(schema, path));
  if (problems.length > 0 || schemas.length === 0) return problems;
  const outcome = await schemaWorker().run({ op: "check", schemas: schemas.map((s) => s.schema) }, CHECK_TIME_LIMIT_MS);
  if (outcome.timedOut)
    return [`the answer schemas took longer than ${CHECK_TIME_LIMIT_MS / 1000} s to compile; make them smaller`];
  return (outcome.reply.problems ?? []).flatMap((problem, i) =>
    problem === null ? [] : [`${schemas[i]!.path} is not a usable JSON Schema: ${problem}`],
  );
}

/**
 * Whether `value` satisfies a publisher's schema, checked in the worker within GRADE_TIME_LIMIT_MS.
 * A schema that cannot compile, or a check that runs out of time, accepts nothing.
 */
export async function answerSatisfiesSchema(schema: unknown, value: unknown): Promise<boolean> {
  const outcome = await schemaWorker().run({ op: "grade", schema, value }, GRADE_TIME_LIMIT_MS);
  return !outcome.timedOut && outcome.reply.valid === true;
}
