import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { parseUsdc } from "@/lib/chain/units";
import { createPublicClient, http } from "viem";
import { reclaim } from "@/scripts/chain/reclaim";
import { escrowV2Abi } from "@/lib/chain/abi";
import { expect, test } from "./fixtures";
import { chainConfig, signedInHuman } from "./api-actors";
import { signInWithWallet } from "./sign-in-steps";
import { POSTER_KEY } from "./job-setup";

// The job page of a job funded in EscrowV2 tells its poster when the slot expires and how to take
// the money back on chain without the marketplace: the "Reclaim on chain" command carries this job's
// contract, escrow id and funding wallet. The command is run here as the poster would run it
// (scripts/chain/reclaim.ts, no service involved): before the expiry it names the same date as the
// page. (The reclaim itself after the expiry, with the operator revoked: scripts/chain/reclaim.test.ts,
// on a chain of its own, since moving this stack's clock a day would move every later spec's.)

test("the poster of an EscrowV2 job sees its expiry and a reclaim command that names this job's slot", async ({
  page,
  wallet,
}) => {
  test.setTimeout(120_000);
  const config = chainConfig();
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title: `Held in EscrowV2 ${Date.now()}`,
        description: "A job whose money can come back without the marketplace.",
        acceptanceCriteria: ["Reclaimable"],
        inputData: { budgetType: "bid" },
        budget: "4",
      },
    })
  ).data;
  const chainClient = createPublicClient({ transport: http(config.rpcUrl) });
  const expiresAt = (await chainClient.getBlock()).timestamp + 10n * 86_400n;
  const { txHash } = await depositToEscrow({
    config,
    privateKey: POSTER_KEY,
    escrowJobId: escrowJobIdFromWire(job.escrowJobId),
    amount: parseUsdc("4"),
    expiresAt,
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  const when = `${new Date(Number(expiresAt) * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC`;

  await signInWithWallet(page, `/jobs/${job.id}`);
  const box = page.getByTestId("escrow-expiry");
  await expect(box).toContainText(`The escrow holds this job's money until ${when}`);
  await expect(box).toContainText("even if this marketplace is gone");
  await box.getByText("Reclaim on chain").click();
  const command = (await page.getByTestId("reclaim-command").textContent()) ?? "";
  const arg = (name: string) => new RegExp(`--${name} (0x[0-9a-fA-F]+)`).exec(command)?.[1];
  expect(command).toContain("npm run escrow:reclaim");
  expect(arg("escrow")?.toLowerCase()).toBe(config.escrowV2Address!.toLowerCase());
  expect(arg("payer")?.toLowerCase()).toBe(wallet.address.toLowerCase());
  const [state, amount] = await chainClient.readContract({
    address: arg("escrow") as `0x${string}`,
    abi: escrowV2Abi,
    functionName: "getEscrow",
    args: [arg("job") as `0x${string}`, arg("payer") as `0x${string}`],
  });
  expect({ state, amount }).toEqual({ state: 1, amount: 4_000_000n });

  // Run as the page says, before the expiry: the script stops and names the page's date.
  const early = await reclaim({
    rpcUrl: config.rpcUrl,
    privateKey: POSTER_KEY,
    escrow: arg("escrow") as `0x${string}`,
    jobId: arg("job") as `0x${string}`,
    payer: arg("payer") as `0x${string}`,
  });
  expect(early).toEqual({
    done: false,
    reason: `not yet: the slot can be reclaimed from ${new Date(Number(expiresAt) * 1000).toISOString()} (the chain's clock)`,
  });
});
