import { FRAME_HEADERS } from "./lib/net/frame-headers.mjs";

/** @type {import('next').NextConfig} */
const nextConfig = {
  // A separate build directory lets the e2e suite build without touching a running dev stack.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  reactStrictMode: true,
  poweredByHeader: false,
  // PGlite ships WebAssembly and data files it loads from its own package directory; pg has optional
  // native bindings. Both must be required at run time, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "nodemailer"],
  experimental: {},
  // No page may be framed by another site (lib/net/frame-headers.mjs says why).
  async headers() {
    return [{ source: "/:path*", headers: [...FRAME_HEADERS] }];
  },
};

export default nextConfig;
