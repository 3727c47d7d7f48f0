import "server-only";
import { cache } from "react";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { getIronSession, type IronSession, type SessionOptions } from "iron-session";
import { getEnv } from "@/lib/env";
import { sessionSecret } from "@/lib/server-secrets.mjs";
import { apiWithToken } from "@/lib/api/for-request";

/**
 * What the dashboard remembers about a visitor, sealed (encrypted and signed) in an httpOnly cookie:
 * the service credential never reaches browser JavaScript, and only this server can read it.
 */
export interface SessionData {
  /** The service's session token (humans) or an agent API key (owners who pasted one). */
  token?: string;
  kind?: "USER" | "AGENT";
  /** What the header shows: a shortened address or the agent's id. */
  label?: string;
  /** When the credential stops being valid here (ISO time); the cookie and the seal expire with it. */
  expiresAt?: string;
}

export type Session = Required<Pick<SessionData, "token" | "kind" | "label">> & { expiresAt: string | null };

export const SESSION_COOKIE = "awm_session";

/** An agent key does not expire, but the session holding it does: a week, then paste it again. */
const AGENT_SESSION_SECONDS = 7 * 24 * 3600;
/** iron-session ends the cookie 60 s before the seal; below this a cookie would be born expired. */
const MIN_SESSION_SECONDS = 120;

let password: string | undefined;
/**
 * SESSION_SECRET, or a random one generated once and kept in DATA_DIR/session-secret (mode 600),
 * so that sessions survive a restart without any setup (lib/server-secrets.mjs, which
 * scripts/server.mjs also reads: the dashboard's client-address key derives from it).
 */
function sessionPassword(): string {
  return (password ??= sessionSecret(getEnv()));
}

function options(ttlSeconds = AGENT_SESSION_SECONDS): SessionOptions {
  // Secure when the site is served over https; on http://localhost a Secure cookie would be dropped.
  const secure = (getEnv().SITE_URL ?? "").startsWith("https://");
  return {
    cookieName: SESSION_COOKIE,
    password: sessionPassword(),
    // The seal carries its own expiry (ttl), and the cookie's Max-Age is ttl - 60 s.
    ttl: ttlSeconds,
    // Lax, not Strict: a claim link opened from a mail client is a cross-site top-level navigation,
    // and the signed-in owner must arrive signed in. Lax still withholds the cookie from cross-site
    // POSTs, subresources and frames; state changes are also Origin-checked (see README.md here).
    cookieOptions: { httpOnly: true, sameSite: "lax", secure, path: "/" },
  };
}

async function rawSession(ttlSeconds?: number): Promise<IronSession<SessionData>> {
  return getIronSession<SessionData>(await cookies(), options(ttlSeconds));
}

/**
 * The visitor's session for this request (one unseal per request, thanks to cache()), or null.
 * A credential past its expiry counts as signed out even if a browser kept the cookie.
 */
export const getSession = cache(async (): Promise<Session | null> => {
  const session = await rawSession();
  if (!session.token || !session.kind) return null;
  if (session.expiresAt && Date.parse(session.expiresAt) <= Date.now()) return null;
  return {
    token: session.token,
    kind: session.kind,
    label: session.label ?? "Signed in",
    expiresAt: session.expiresAt ?? null,
  };
});

/** For pages and actions that need a signed-in visitor: sends others to sign in, then back. */
export async function requireSession(returnTo: string): Promise<Session> {
  const session = await getSession();
  if (!session) redirect(signInHref(returnTo));
  return session;
}

export function signInHref(returnTo: string, extra: Record<string, string> = {}): string {
  return `/sign-in?${new URLSearchParams({ returnTo, ...extra })}`;
}

/**
 * Seals a service credential into the session cookie (server actions and route handlers only:
 * cookies cannot be set while a page renders). The cookie lives exactly as long as the credential:
 * a human's token until its expiresAt, an agent key for a week.
 */
export async function signInWithToken(
  token: string,
  expiresAt: string | null,
  kind: "USER" | "AGENT",
  label: string,
): Promise<void> {
  const until = expiresAt ? Date.parse(expiresAt) : Date.now() + AGENT_SESSION_SECONDS * 1000;
  const ttl = Math.max(MIN_SESSION_SECONDS, Math.floor((until - Date.now()) / 1000));
  const session = await rawSession(ttl);
  // Replace, never merge: a new sign-in must not inherit anything of the previous one.
  for (const key of Object.keys(session) as (keyof SessionData)[]) delete session[key];
  Object.assign(session, { token, kind, label, expiresAt: new Date(until).toISOString() } satisfies SessionData);
  await session.save();
}

/**
 * Forgets the session here and, for a human, ends it at the service too, so that a copy of the
 * cookie is worthless afterwards. (An agent key stays valid: it belongs to the agent, not to
 * this browser.)
 */
export async function signOut(): Promise<void> {
  const session = await rawSession();
  const { token, kind } = session;
  session.destroy();
  if (token && kind === "USER") {
    await (await apiWithToken(token)).endSession({}).catch(() => undefined);
  }
}
