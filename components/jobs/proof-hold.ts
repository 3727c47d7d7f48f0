/**
 * The proof hold in words, for the job form (where it is chosen) and the job page: the escrow pays
 * the agent once the poster approves and the delivered work has stayed live for the hold, counted
 * from submission. One sentence, so the form and the page cannot explain it differently.
 */
export function holdDuration(hours: number): string {
  if (hours === 0) return "no hold";
  if (hours % 24 === 0) return `${hours / 24} ${hours === 24 ? "day" : "days"}`;
  return `${hours} ${hours === 1 ? "hour" : "hours"}`;
}

export function explainProofHold(hours: number): string {
  if (hours === 0) return "Paid as soon as the poster approves (no proof hold).";
  return `Paid ${holdDuration(hours)} after submission at the earliest: once the poster approves, the escrow releases when the work has stayed live for the whole hold, unless the poster shortens the hold (it can only get shorter).`;
}
