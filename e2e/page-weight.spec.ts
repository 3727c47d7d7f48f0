import { expect, formatKb, measureFirstLoadJs, test } from "./fixtures";
import { apiClient, signedInHuman } from "./api-actors";

// The read pages ship no wallet code: first-load JavaScript of the jobs board and a job page, gzip,
// at most 30 kB over the empty page of the same build (/empty: framework and root layout only).
// The sign-in page, which does load wagmi and RainbowKit, is measured too, to show the measurement
// would catch wallet code leaking into a page.

const BUDGET = 30 * 1024;

test("the jobs board and a job page ship at most 30 kB of JavaScript over an empty page; the wallet pages carry the wallet code", async ({
  baseURL,
}) => {
  const poster = await apiClient().signUpAgent({
    body: { ownerEmail: `weight-${Date.now()}@example.test`, name: "Weight Poster" },
  });
  const job = (
    await apiClient(poster.data.apiKey).createJob({
      body: {
        templateId: "custom-v1",
        title: `Weigh this page ${Date.now()}`,
        description: "A job whose page is weighed by the page-weight test.",
        acceptanceCriteria: ["Light"],
        inputData: { budgetType: "bid", proofHoldHours: 1 },
        budget: "3",
      },
    })
  ).data;
  const url = (path: string) => new URL(path, baseURL).href;
  const empty = await measureFirstLoadJs(url("/empty"));
  console.log(`/empty: ${formatKb(empty.totalGzipBytes)} in ${empty.scripts.length} scripts`);

  for (const path of ["/jobs", "/jobs?funded=true&status=OPEN", `/jobs/${job.id}`]) {
    const weight = await measureFirstLoadJs(url(path));
    const extra = weight.totalGzipBytes - empty.totalGzipBytes;
    const added = weight.scripts.filter((s) => !empty.scripts.some((e) => e.src === s.src));
    console.log(
      `${path}: ${formatKb(weight.totalGzipBytes)} (+${formatKb(extra)} over /empty; own scripts: ${added.map((s) => `${s.src.split("/").pop()} ${formatKb(s.gzipBytes)}`).join(", ") || "none"})`,
    );
    expect(extra, `${path} first-load JS over /empty`).toBeLessThanOrEqual(BUDGET);
  }

  const signIn = await measureFirstLoadJs(url("/sign-in"));
  const walletExtra = signIn.totalGzipBytes - empty.totalGzipBytes;
  console.log(
    `/sign-in: ${formatKb(signIn.totalGzipBytes)} (+${formatKb(walletExtra)} over /empty: wagmi, viem, RainbowKit)`,
  );
  expect(walletExtra, "the measurement sees the wallet code of /sign-in").toBeGreaterThan(100 * 1024);
});

// The thread page renders on the server; its client code is the reply form (and its buttons). The
// compose forms take the forum's lists from a zod-free module, so no schema library ships with it.
test("a forum thread page ships at most 15 kB of JavaScript over an empty page", async ({ baseURL }) => {
  const author = await signedInHuman();
  const thread = (
    await author.client.createThread({
      body: {
        title: `A thread to weigh ${Date.now()}`,
        body: "A thread whose page is weighed by the page-weight test, with **Markdown**.",
        category: "benchmarks",
      },
    })
  ).data;
  const url = (path: string) => new URL(path, baseURL).href;
  const empty = await measureFirstLoadJs(url("/empty"));
  const weight = await measureFirstLoadJs(url(`/forum/${thread.slug}`));
  const extra = weight.totalGzipBytes - empty.totalGzipBytes;
  const added = weight.scripts.filter((s) => !empty.scripts.some((e) => e.src === s.src));
  console.log(
    `/forum/${thread.slug}: +${formatKb(extra)} over /empty; own scripts: ${added.map((s) => `${s.src.split("/").pop()} ${formatKb(s.gzipBytes)}`).join(", ") || "none"}`,
  );
  expect(extra, "thread page first-load JS over /empty").toBeLessThanOrEqual(15 * 1024);
});
