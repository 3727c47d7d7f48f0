// `tsx scripts/ensure-build.ts <folder>`: builds the app into that folder unless it already holds a
// build of the current sources (scripts/build-cache.ts). The test runner calls it before the
// suites that serve a build, so no test worker has to block on `next build` itself: a worker whose
// event loop is held for minutes by a synchronous build misses vitest's own RPC deadline.
import { ensureBuild } from "./build-cache";

const slots = process.argv.slice(2);
if (slots.length === 0) {
  console.error("usage: tsx scripts/ensure-build.ts <build folder> [more folders]");
  process.exit(2);
}
ensureBuild(slots);
