// The state of the dashboard's form actions (lib/actions/action.ts), readable by the client
// components that render it; no server code here.

/** The state every form action answers with; an action may add its own fields. */
export interface FormState {
  /** Messages for the whole form: the service's refusal, as it said it. */
  error?: string[];
  /** The refusal's code and HTTP status (e.g. AGENT_AT_CAPACITY, 409). */
  code?: string;
  status?: number;
  /** Messages under a field, by field name (the request schema's, or the service's 400). */
  fields?: Record<string, string[]>;
  /** The fields as typed, to refill the form after a refusal (only those the action keeps: never a secret). */
  values?: Record<string, string>;
  /**
   * Counts refused submissions. A form keyed on it remounts with each refusal, so selects,
   * checkboxes and radios come back as chosen (React resets a form after its action).
   */
  attempt?: number;
}

/** Every message of a state, for a form that shows them in one place: the refusal, then each field's ("address: …"). */
export function messagesOf(state: FormState, labels: Record<string, string> = {}): string[] {
  return [
    ...(state.error ?? []),
    ...Object.entries(state.fields ?? {}).flatMap(([field, messages]) =>
      messages.map((m) => `${labels[field] ?? field}: ${m}`),
    ),
  ];
}
