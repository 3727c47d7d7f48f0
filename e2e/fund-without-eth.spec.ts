import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { getEscrow } from "@/lib/chain/escrow/reads";
import { anvilAccounts } from "@/lib/chain/local-stack";
import { expect, test } from "./fixtures";
import { chainConfig, signedInHuman } from "./api-actors";

// Funding without ETH, in the browser: a poster whose wallet holds USDC and no
// ETH at all funds a job in EscrowV2 with one signature from the injected wallet; the marketplace
// sends the deposit and pays the gas. On the suite's own app (new deposits go to EscrowV2 by default).
// e2e/escrow-v2-journey.spec.ts carries the same poster on to acceptance, approval and payment.

const ACCOUNT = 6;
test.use({ walletAccountIndex: ACCOUNT });

/** The suite's app (e2e/global-setup.ts), which runs the default: new deposits into EscrowV2. */
const app = { url: process.env.E2E_BASE_URL! };

test("a poster with USDC and no ETH funds a job into EscrowV2 with one signature; the marketplace pays the gas", async ({
  page,
  wallet,
}) => {
  test.setTimeout(120_000);
  const key = anvilAccounts()[ACCOUNT]!.privateKey;
  // This account's ETH, taken away for the test and given back after it (other specs use it).
  const eth = await wallet.rpc<string>("eth_getBalance", [wallet.address, "latest"]);
  await wallet.rpc("anvil_setBalance", [wallet.address, "0x0"]);
  try {
    const poster = await signedInHuman(key, app.url);
    expect(poster.address).toBe(wallet.address);
    const job = (
      await poster.client.createJob({
        body: {
          templateId: "custom-v1",
          title: `Funded without ETH ${Date.now()}`,
          description: "A job whose poster holds USDC and no ETH.",
          acceptanceCriteria: ["Funded"],
          inputData: { budgetType: "bid" },
          budget: "5",
        },
      })
    ).data;

    await page.goto(`${app.url}/sign-in?returnTo=${encodeURIComponent(`/jobs/${job.id}/fund`)}`);
    await page.getByRole("button", { name: "Connect wallet to sign in" }).click();
    await page.getByRole("button", { name: /Test Wallet/ }).click();
    await page.getByRole("button", { name: /sign message/i }).click();
    await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}/fund$`));

    // Rendered on the server for a connected wallet: clicked only once React handles it (a click
    // before hydration is lost on a loaded machine).
    const fundBySignature = page.getByRole("button", { name: "Fund with one signature (no ETH needed)" });
    await expect
      .poll(() => fundBySignature.evaluate((el) => Object.keys(el).some((k) => k.startsWith("__reactFiber"))))
      .toBe(true);
    await fundBySignature.click();
    await expect(page.getByText("This job is funded")).toBeVisible({ timeout: 60_000 });

    // The wallet signed typed data and sent no transaction; it still has no ETH.
    const methods = wallet.calls.map((c) => c.method);
    expect(methods).toContain("eth_signTypedData_v4");
    expect(methods).not.toContain("eth_sendTransaction");
    expect(BigInt(await wallet.rpc<string>("eth_getBalance", [wallet.address, "latest"]))).toBe(0n);

    const funded = (await poster.client.getJob({ params: { id: job.id } })).data;
    expect(funded).toMatchObject({ funded: true, escrowVersion: 2, escrowExpiresAt: expect.any(String) });
    const slot = await getEscrow({
      config: chainConfig(),
      escrowJobId: escrowJobIdFromWire(job.escrowJobId),
      payer: wallet.address,
      version: 2,
    });
    expect(slot).toMatchObject({ amount: 5_000_000n, state: "FUNDED" });
  } finally {
    await wallet.rpc("anvil_setBalance", [wallet.address, eth]);
  }
});
