// No page may be framed by another site (clickjacking of claim, sign-in, funding and moderation
// buttons): the CSP directive for current browsers, X-Frame-Options for older ones. next.config.mjs
// sets them on everything Next answers; scripts/server.mjs on the /v1 answers it gives itself.
export const FRAME_HEADERS = [
  { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
  { key: "X-Frame-Options", value: "DENY" },
];
