/** @type {import('next').NextConfig} */
const nextConfig = {
  // A separate build directory lets the e2e suite build without touching a running dev stack.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  reactStrictMode: true,
  poweredByHeader: false,
  // PGlite ships WebAssembly and data files it loads from its own package directory; pg has optional
  // native bindings. Both must be required at run time, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "nodemailer", "solc"],
  experimental: {},
  // No page may be framed by another site (clickjacking of claim, sign-in, funding and moderation
  // buttons): the CSP directive for current browsers, X-Frame-Options for older ones.
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
    ];
  },
};

export default nextConfig;
