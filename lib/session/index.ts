import "server-only";

// The dashboard's server-side session: see README.md in this folder.
export {
  getSession,
  requireSession,
  signInWithToken,
  signOut,
  signInHref,
  SESSION_COOKIE,
  type Session,
  type SessionData,
} from "./session";
export { apiForRequest, sessionApi, requireSessionApi } from "./api";
export { isSameOriginRequest, crossSiteRefusal } from "./same-origin";
export { safeReturnTo } from "./return-to";
