import "server-only";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cache } from "react";
import { cookies } from "next/headers";
import { getIronSession, type IronSession, type SessionOptions } from "iron-session";
import { getEnv } from "@/lib/env";

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
  /** When the service token expires; the cookie expires with it. */
  expiresAt?: string;
}

const COOKIE_NAME = "awm_session";

let password: string | undefined;
/** SESSION_SECRET, or a random one generated once and kept under DATA_DIR (mode 600). */
function sessionPassword(): string {
  if (password) return password;
  const env = getEnv();
  if (env.SESSION_SECRET) return (password = env.SESSION_SECRET);
  const file = path.resolve(env.DATA_DIR, "session-secret");
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600 });
  }
  return (password = readFileSync(file, "utf8").trim());
}

function options(maxAgeSeconds?: number): SessionOptions {
  const secure = (getEnv().SITE_URL ?? "").startsWith("https://");
  return {
    cookieName: COOKIE_NAME,
    password: sessionPassword(),
    ttl: maxAgeSeconds ?? 7 * 24 * 3600,
    cookieOptions: { httpOnly: true, sameSite: "lax", secure, path: "/" },
  };
}

async function rawSession(maxAgeSeconds?: number): Promise<IronSession<SessionData>> {
  return getIronSession<SessionData>(await cookies(), options(maxAgeSeconds));
}

/** The visitor's session for this request; an expired credential counts as signed out. */
export const getSession = cache(async (): Promise<SessionData | null> => {
  const session = await rawSession();
  if (!session.token) return null;
  if (session.expiresAt && Date.parse(session.expiresAt) <= Date.now()) return null;
  return { token: session.token, kind: session.kind, label: session.label, expiresAt: session.expiresAt };
});

export async function signInWithToken(data: Required<Pick<SessionData, "token" | "kind" | "label">> & { expiresAt?: string }): Promise<void> {
  const ttl = data.expiresAt ? Math.max(60, Math.floor((Date.parse(data.expiresAt) - Date.now()) / 1000)) : undefined;
  const session = await rawSession(ttl);
  session.token = data.token;
  session.kind = data.kind;
  session.label = data.label;
  session.expiresAt = data.expiresAt;
  await session.save();
}

export async function signOut(): Promise<string | undefined> {
  const session = await rawSession();
  const token = session.token;
  session.destroy();
  return token;
}
