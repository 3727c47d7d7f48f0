import { verifyMessage, verifyTypedData } from "viem";
import { anvilAddress, expect, formatKb, measureFirstLoadJs, recordResponses, test } from "./fixtures";

// Checks of the test harness itself (fixtures in e2e/fixtures), against the real stack. If one
// of these fails, the failure is in the harness or the stack, not in a product flow.

test.describe("harness", () => {
  test("page weight: / ships no more JavaScript than the empty page", async ({ baseURL }) => {
    const empty = await measureFirstLoadJs(new URL("/empty", baseURL).href);
    const home = await measureFirstLoadJs(new URL("/", baseURL).href);
    console.log(`first-load JS: /empty ${formatKb(empty.totalGzipBytes)}, / ${formatKb(home.totalGzipBytes)}`);
    expect(empty.scripts.length).toBeGreaterThan(0);
    expect(empty.totalGzipBytes).toBeGreaterThan(10_000);
    // The shell and the landing page are server-rendered only: no client components of their own.
    expect(home.totalGzipBytes - empty.totalGzipBytes).toBeLessThan(5_000);
  });

  test("wallet: injected provider answers with the anvil account, signs and sends for real", async ({
    page,
    wallet,
  }) => {
    await page.goto("/empty");
    const announced = await page.evaluate(
      () =>
        new Promise<{ name: string; rdns: string }>((resolve) => {
          window.addEventListener("eip6963:announceProvider", (e) => resolve((e as CustomEvent).detail.info), {
            once: true,
          });
          window.dispatchEvent(new Event("eip6963:requestProvider"));
        }),
    );
    expect(announced).toMatchObject({ name: "Test Wallet", rdns: "dev.agentwork.testwallet" });

    type Eth = { request(a: { method: string; params?: unknown[] }): Promise<unknown> };
    const call = (method: string, params: unknown[] = []) =>
      page.evaluate(([m, p]) => (window as unknown as { ethereum: Eth }).ethereum.request({ method: m, params: p }), [
        method,
        params,
      ] as const);

    expect(await call("eth_accounts")).toEqual([]);
    expect(await call("eth_requestAccounts")).toEqual([wallet.address]);
    expect(wallet.address).toBe(anvilAddress(1));
    expect(await call("eth_chainId")).toBe(wallet.chainIdHex);

    const signature = (await call("personal_sign", ["0x68656c6c6f", wallet.address])) as `0x${string}`;
    expect(await verifyMessage({ address: wallet.address, message: "hello", signature })).toBe(true);

    const typed = {
      domain: { name: "Harness", version: "1", chainId: Number(wallet.chainIdHex) },
      types: { Note: [{ name: "text", type: "string" }] },
      primaryType: "Note" as const,
      message: { text: "hi" },
    };
    const typedJson = JSON.stringify({
      ...typed,
      types: {
        EIP712Domain: [
          { name: "name", type: "string" },
          { name: "version", type: "string" },
          { name: "chainId", type: "uint256" },
        ],
        ...typed.types,
      },
    });
    const typedSig = (await call("eth_signTypedData_v4", [wallet.address, typedJson])) as `0x${string}`;
    expect(await verifyTypedData({ address: wallet.address, ...typed, signature: typedSig })).toBe(true);

    const hash = (await call("eth_sendTransaction", [
      { from: wallet.address, to: anvilAddress(2), value: "0x1" },
    ])) as string;
    const receipt = await wallet.rpc<{ status: string }>("eth_getTransactionReceipt", [hash]);
    expect(receipt.status).toBe("0x1");

    expect(await call("wallet_switchEthereumChain", [{ chainId: wallet.chainIdHex }])).toBeNull();
    await expect(call("wallet_switchEthereumChain", [{ chainId: "0x1" }])).rejects.toThrow(/Unrecognized chain/);

    wallet.rejectNext("personal_sign");
    await expect(call("personal_sign", ["0x00", wallet.address])).rejects.toThrow(/User rejected/);

    const changed = page.evaluate(
      () =>
        new Promise((resolve) =>
          (window as unknown as { ethereum: { on(e: string, l: (a: unknown) => void): void } }).ethereum.on(
            "accountsChanged",
            resolve,
          ),
        ),
    );
    await wallet.switchAccount(3);
    expect(await changed).toEqual([anvilAddress(3)]);
    expect(wallet.calls.map((c) => c.method)).toContain("eth_sendTransaction");
  });

  test("secret recorder: finds a credential in a response body, ignores clean ones", async ({ page, context }) => {
    const recorder = recordResponses(context, { secrets: ["correct horse battery staple password"] });
    const key = `awm_sk_${"A1b2".repeat(11)}`;
    await page.route("**/leaky.json", (route) =>
      route.fulfill({ contentType: "application/json", body: JSON.stringify({ apiKey: key }) }),
    );
    await page.route("**/leaky.html", (route) =>
      route.fulfill({ contentType: "text/html", body: "<p>correct horse battery staple password</p>" }),
    );
    await page.goto("/empty");
    await page.evaluate(() => fetch("/leaky.json").then((r) => r.text()));
    await page.goto("/leaky.html");
    const leaks = await recorder.findLeaks();
    expect(leaks.map((l) => l.url.replace(/^.*\//, "")).sort()).toEqual(["leaky.html", "leaky.json"]);
    expect(leaks.every((l) => !l.excerpt.includes(key))).toBe(true);
    await expect(recorder.assertNoLeaks()).rejects.toThrow(/2 secret\(s\) reached the browser/);
    expect(await recorder.findLeaks({ ignoreUrl: (u) => u.includes("leaky") })).toEqual([]);
  });

  test("secret recorder fixture: the shell pages leak nothing", async ({ page, secrets }) => {
    await page.goto("/");
    await page.goto("/empty");
    await secrets.flush();
    expect(secrets.bodies.some((b) => b.contentType.includes("text/html"))).toBe(true);
  });
});
