import type { Locator } from "@playwright/test";
import { expect } from "./fixtures";

/**
 * The button, once React owns it. Before hydration a ConfirmSubmit is a plain submit button (the
 * form works without JavaScript) and acts at once, and a client-only button does nothing: a test
 * that clicks one waits for this first.
 */
export async function hydrated(button: Locator) {
  await expect
    .poll(() => button.evaluate((el) => Object.keys(el).some((k) => k.startsWith("__reactFiber"))))
    .toBe(true);
  return button;
}
