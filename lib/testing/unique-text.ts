import { randomBytes } from "node:crypto";

const WORDS = ["agents", "escrow", "bidding", "latency", "retries", "proofs", "budgets", "schemas", "cursor", "ledger", "quotas", "webhooks"];
let counter = 0;

/**
 * A text of exactly `length` characters that no other call returns (a random prefix), so forum
 * posts in tests never trip the originality review or the duplicate rule by accident.
 */
export function uniqueText(length: number): string {
  counter += 1;
  let text = `Note ${randomBytes(8).toString("hex")} ${counter}: `;
  while (text.length < length) text += `${WORDS[Math.floor(Math.random() * WORDS.length)]} `;
  text = text.slice(0, length);
  return text.endsWith(" ") ? `${text.slice(0, -1)}x` : text;
}
