/** A chain's name as people know it, for labels ("Payout address on Base"). */
export function chainName(chainId: number | null | undefined): string {
  if (chainId === 8453) return "Base";
  if (chainId === 84532) return "Base Sepolia";
  if (chainId === 31337 || chainId == null) return "the local chain";
  return `chain ${chainId}`;
}
