import { DomainError } from "../errors";
import type { ServiceContext } from "../context";

/**
 * Helpers of the pure rule tests (docs/testing.md, "The pyramid"): a rule's refusal read as the
 * router would read it (code, the list of problems, the code's extras), without a server.
 */

export interface Refusal {
  code: string;
  messages: string[];
  extra: Record<string, unknown>;
}

function asRefusal(error: unknown): Refusal {
  if (!(error instanceof DomainError)) throw error;
  const messages = Array.isArray(error.messages) ? error.messages : [error.messages];
  return { code: error.code, messages, extra: error.extra };
}

/** The DomainError a rule throws, or null when it lets the input through. Anything else is rethrown. */
export function refusalOf(rule: () => unknown): Refusal | null {
  try {
    rule();
    return null;
  } catch (error) {
    return asRefusal(error);
  }
}

/** refusalOf for a rule that returns a promise. */
export async function refusalOfAsync(rule: () => Promise<unknown>): Promise<Refusal | null> {
  try {
    await rule();
    return null;
  } catch (error) {
    return asRefusal(error);
  }
}

/**
 * A context for a rule that takes one but must decide without it on the path under test: reading
 * any of its fields (the database, the clock, the settings) throws, so a test that passes proves the
 * decision needed none of them.
 */
export function untouchedContext(): ServiceContext {
  return new Proxy({} as ServiceContext, {
    get(_target, field) {
      if (field === "then") return undefined; // not a thenable: `await` may look at it
      throw new Error(`this rule read ctx.${String(field)}: it was meant to decide without the service`);
    },
  });
}
