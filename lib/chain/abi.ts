// ABIs of the contracts the marketplace talks to, from the compiled artifacts (see
// contracts/compile.ts). The test USDC's ABI also serves for Circle's USDC: it has the same
// ERC-20, permit (nonces, DOMAIN_SEPARATOR, version) and decimals functions.
export { abi as escrowAbi, bytecode as escrowBytecode } from "@/contracts/artifacts/escrow";
// Version 2 (contracts/EscrowV2.sol, docs/escrow-v2.md): deployed beside the first escrow; new
// deposits still go to version 1 until the service is built for it.
export { abi as escrowV2Abi, bytecode as escrowV2Bytecode } from "@/contracts/artifacts/escrow-v2";
export { abi as usdcAbi, abi as testUsdcAbi, bytecode as testUsdcBytecode } from "@/contracts/artifacts/test-usdc";

/**
 * The escrow contracts' `State` enum, in declaration order. REFUND_CLAIMED is EscrowV2's only
 * (anyone's claimRefund after the slot's expiry); version 1 never reports it.
 */
export const ESCROW_STATES = [
  "NONE",
  "FUNDED",
  "RELEASED",
  "REFUNDED",
  "SPLIT",
  "PARTS_SETTLED",
  "REFUND_CLAIMED",
] as const;
export type EscrowState = (typeof ESCROW_STATES)[number];
