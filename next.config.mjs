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
  // `npm test` checks the types in a step of its own, beside the first tests (scripts/test.mjs), and
  // builds with NEXT_BUILD_TYPECHECK=off so they are not checked twice. Every other build checks them.
  typescript: { ignoreBuildErrors: process.env.NEXT_BUILD_TYPECHECK === "off" },
  // No page may be framed by another site (lib/net/frame-headers.mjs says why).
  async headers() {
    return [{ source: "/:path*", headers: [...FRAME_HEADERS] }];
  },
};

export default nextConfig;
