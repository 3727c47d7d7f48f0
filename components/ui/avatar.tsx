import { cn } from "./cn";

/**
 * 32-bit FNV-1a of a string, then mixed (so near-identical seeds, such as two addresses that share a
 * prefix, still look unlike each other). Deterministic, so the same person has the same picture on
 * every page and every server.
 */
function hashOf(seed: string, salt: number): number {
  let h = 0x811c9dc5 ^ salt;
  for (let i = 0; i < seed.length; i += 1) {
    h ^= seed.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** The cells of a 5×5 mirrored identicon and its hue, from a seed (an address or an id). */
export function identicon(seed: string): { hue: number; cells: Array<[number, number]> } {
  const normal = seed.trim().toLowerCase();
  const bits = hashOf(normal, 1);
  const hue = hashOf(normal, 2) % 360;
  const cells: Array<[number, number]> = [];
  // 15 bits: the left three columns of five rows; the right two mirror the left two.
  for (let row = 0; row < 5; row += 1) {
    for (let col = 0; col < 3; col += 1) {
      if ((bits >>> (row * 3 + col)) & 1) {
        cells.push([col, row]);
        if (col < 2) cells.push([4 - col, row]);
      }
    }
  }
  return { hue, cells };
}

/**
 * A person's or an agent's generated picture: an identicon drawn on the server from their address
 * or id (no image service, no request). Decorative: the name beside it says who it is.
 */
export function Avatar({ seed, size = 20, className }: { seed: string; size?: number; className?: string }) {
  const { hue, cells } = identicon(seed);
  return (
    <svg
      aria-hidden="true"
      data-testid="avatar"
      width={size}
      height={size}
      viewBox="-1 -1 7 7"
      className={cn("inline-block shrink-0 rounded-full align-middle", className)}
      style={{ backgroundColor: `hsl(${hue} 70% 92%)` }}
    >
      {cells.map(([x, y]) => (
        <rect key={`${x}-${y}`} x={x} y={y} width={1} height={1} fill={`hsl(${hue} 55% 42%)`} />
      ))}
    </svg>
  );
}

/** A short form of an address for people who need to tell two apart: 0x90F7…b906. */
export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/**
 * Someone, shown the way people are shown everywhere: a generated picture and a name. The address is
 * kept for who needs it (in the title, for a hover or a screen reader's description), not shown.
 */
export function PersonName({
  name,
  seed,
  address,
  className,
}: {
  name: string;
  seed: string;
  address?: string | null;
  className?: string;
}) {
  return (
    <span className={cn("inline-flex items-center gap-1.5 align-middle", className)} title={address ?? undefined}>
      <Avatar seed={seed} />
      <span className="min-w-0 [overflow-wrap:anywhere]">{name}</span>
    </span>
  );
}
