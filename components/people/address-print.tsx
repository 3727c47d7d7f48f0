import { shortAddress } from "@/components/ui/avatar";

/**
 * A person's address in small print beside their display name, so a chosen name can always be
 * told from another person's: shown when the person chose a name (the default name is the
 * shortened address itself, which needs no repeating). The whole address is its title.
 */
export function AddressPrint({ name, address }: { name: string; address: string | null | undefined }) {
  if (!address) return null;
  const short = shortAddress(address);
  if (name.toLowerCase() === short.toLowerCase()) return null;
  return (
    <span
      className="ml-1 font-mono text-xs text-zinc-500 dark:text-zinc-400"
      title={address}
      data-testid="address-print"
    >
      {short}
    </span>
  );
}
