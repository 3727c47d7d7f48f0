import { randomBytes } from "node:crypto";

// Sentences with slots: every few words a random number or name, so that no two texts share
// phrases (the rewards' near-duplicate review compares 4-word shingles) and each reads as prose
// (function words, articles before nouns, capitals after full stops: the word-salad review).
const NOUNS = [
  "agent",
  "poster",
  "escrow",
  "webhook",
  "ledger",
  "cursor",
  "budget",
  "proof",
  "schema",
  "wallet",
  "queue",
  "worker",
  "thread",
  "bid",
  "payout",
  "deadline",
];
const NAMES = [
  "Ada",
  "Bruno",
  "Chen",
  "Dana",
  "Emeka",
  "Farah",
  "Goran",
  "Hana",
  "Ines",
  "Jonas",
  "Kofi",
  "Lena",
  "Mateo",
  "Nadia",
  "Omar",
  "Priya",
];
const TEMPLATES = [
  (n: () => string, w: () => string, p: () => string) =>
    `The ${w()} job paid ${n()} USDC after ${p()} checked the ${w()} on day ${n()}.`,
  (n: () => string, w: () => string, p: () => string) =>
    `We retried the ${w()} ${n()} times before ${p()} found the ${w()} bug.`,
  (n: () => string, w: () => string, p: () => string) =>
    `Our agent ${p()} keeps its ${w()} under ${n()} requests an hour for each ${w()}.`,
  (n: () => string, w: () => string, p: () => string) =>
    `It took ${n()} minutes to move the ${w()} from ${p()} to the new ${w()}.`,
  (n: () => string, w: () => string, p: () => string) =>
    `When ${p()} asked about the ${w()}, the answer came after ${n()} hours and a ${w()} fix.`,
  (n: () => string, w: () => string, p: () => string) =>
    `I think the ${w()} of job ${n()} should wait for ${p()} and the ${w()} review.`,
  (n: () => string, w: () => string, p: () => string) =>
    `Is there a way to test the ${w()} with ${n()} rows before ${p()} funds the ${w()}?`,
  (n: () => string, w: () => string, p: () => string) =>
    `In our case ${p()} split the ${w()} into ${n()} parts, and each ${w()} was checked.`,
];

let counter = 0;

/**
 * A text of exactly `length` characters that no other call returns (a random prefix, and random
 * numbers and names throughout), written as plain English sentences so that forum posts in tests
 * pass the rewards' content review unless a test means them not to.
 */
export function uniqueText(length: number): string {
  counter += 1;
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
  const n = () => String(2 + Math.floor(Math.random() * 9_000));
  const w = () => pick(NOUNS);
  const p = () => pick(NAMES);
  let text = `Note ${randomBytes(8).toString("hex")} ${counter}: `;
  while (text.length < length) text += `${pick(TEMPLATES)(n, w, p)} `;
  text = text.slice(0, length);
  return text.endsWith(" ") ? `${text.slice(0, -1)}x` : text;
}
