import "server-only";
import type { z } from "zod";
import type { ApiClient } from "@/lib/api/client";
import { ApiError } from "@/lib/api/errors";
import { requireSessionApi } from "@/lib/session/api";
import type { Session } from "@/lib/session/session";
import type { FormState } from "./form-state";

export type { FormState } from "./form-state";

// The dashboard's server actions, one per file under lib/actions/<area>/<verb>-<noun>.ts, all
// built the same way: the form's fields are parsed with the service's own request schemas
// (lib/api/schemas), so no action re-types a length or a pattern; the call goes out with the
// visitor's sealed session; a refusal of the service comes back as form state, worded as the
// service worded it. Next refuses server actions from other origins (CSRF, lib/session/README.md);
// the service decides who may do what.

export type FormValues = Record<string, string>;

/**
 * The form's text fields (a repeated name keeps its last value; files are ignored). A form posted
 * before hydration also carries Next's own fields ($ACTION_REF_1, $ACTION_KEY...), which no request
 * schema knows; they are not the form's.
 */
export function formValues(form: FormData): FormValues {
  const values: FormValues = {};
  for (const [key, value] of form.entries())
    if (typeof value === "string" && !key.startsWith("$ACTION")) values[key] = value;
  return values;
}

/** zod's issues by field (the first path segment; "form" for the whole input). */
export function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) (fields[String(issue.path[0] ?? "form")] ??= []).push(issue.message);
  return fields;
}

/** A refusal of the service as form state. */
export function refusalOf(error: ApiError): Pick<FormState, "error" | "code" | "status"> {
  return { error: error.messages, code: error.code, status: error.status };
}

const pick = (values: FormValues, keys: readonly string[] = []) =>
  Object.fromEntries(keys.filter((k) => k in values).map((k) => [k, values[k]!]));

export interface FormActionOptions<S extends z.ZodType, State extends FormState> {
  /** The page a signed-out visitor comes back to after signing in, from the form's fields. */
  signIn: (values: FormValues) => string;
  /** Needs a human session (claims, posting as a person). */
  human?: boolean;
  /** Fields echoed back after a refusal, so the form keeps what was typed. */
  keep?: readonly string[];
  /** Fields of the previous state every answer keeps (e.g. the form's Idempotency-Key). */
  carry?: readonly (keyof State)[];
  /** The schema's input from the form (default: the text fields as they are). */
  read?: (form: FormData, values: FormValues) => unknown;
  /** The state of a service refusal (default: its messages, code and status). */
  refused?: (error: ApiError, input: z.output<S>, state: State) => State | Promise<State>;
}

export interface ActionContext<State> {
  api: ApiClient;
  session: Session;
  /** The previous state (useActionState's). */
  state: State;
}

/**
 * One form action: form data → request schema → a call with the session's client → form state.
 * Invalid fields answer `fields` without calling the service; an ApiError answers the refusal;
 * anything else (redirect() included) is thrown on.
 */
export function formAction<S extends z.ZodType, State extends FormState = FormState>(
  schema: S,
  options: FormActionOptions<S, State>,
  run: (input: z.output<S>, context: ActionContext<State>) => Promise<State>,
): (state: State, form: FormData) => Promise<State> {
  return async (state, form) => {
    const values = formValues(form);
    const kept = pick(values, options.keep);
    const attempt = (state.attempt ?? 0) + 1;
    const carried = Object.fromEntries((options.carry ?? []).map((k) => [k, state[k]])) as Partial<State>;
    const { api, session } = await requireSessionApi(options.signIn(values), { human: options.human });
    const parsed = schema.safeParse(options.read ? options.read(form, values) : values);
    if (!parsed.success) return { ...carried, fields: fieldErrors(parsed.error), values: kept, attempt } as State;
    try {
      const next = await run(parsed.data, { api, session, state });
      // A refusal decided by the action itself keeps the typed values too.
      return next.error || next.fields ? { ...carried, values: kept, attempt, ...next } : next;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const refusal = options.refused ? await options.refused(error, parsed.data, state) : refusalOf(error);
      return { ...carried, values: kept, attempt, ...refusal } as State;
    }
  };
}
