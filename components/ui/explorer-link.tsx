import { cn } from "./cn";

/** "0x1234…cdef": enough to recognise a hash or address, short enough for a table cell. */
export function shortenHex(value: string, head = 6, tail = 4): string {
  return value.length <= head + tail + 1 ? value : `${value.slice(0, head)}…${value.slice(-tail)}`;
}

export interface ExplorerLinkProps {
  /** A transaction hash (0x + 64 hex) or an address (0x + 40 hex). */
  value: string;
  kind?: "tx" | "address";
  /** Base URL of a block explorer (GET /v1/chain's explorerUrl); no link without one (the local chain). */
  explorerUrl?: string | null;
  className?: string;
}

const PATTERN = { tx: /^0x[0-9a-fA-F]{64}$/, address: /^0x[0-9a-fA-F]{40}$/ };

function explorerBase(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.href.replace(/\/+$/, "") : null;
  } catch {
    return null;
  }
}

/**
 * A shortened hash, linked to the explorer when one is configured. Only well-formed hex values are
 * linked, so nothing else can be smuggled into the explorer URL.
 */
export function ExplorerLink({ value, kind = "tx", explorerUrl, className }: ExplorerLinkProps) {
  const base = explorerBase(explorerUrl);
  const text = <span className="font-mono text-[0.9em]">{shortenHex(value)}</span>;
  const label = kind === "tx" ? "Transaction" : "Address";
  if (!base || !PATTERN[kind].test(value)) {
    return (
      <span title={value} className={cn("text-zinc-700 dark:text-zinc-300", className)}>
        {text}
        <span className="sr-only">
          {" "}
          ({label.toLowerCase()} {value})
        </span>
      </span>
    );
  }
  return (
    <a
      href={`${base}/${kind}/${value}`}
      target="_blank"
      rel="noopener noreferrer"
      title={`${label} ${value} on the block explorer`}
      className={cn("inline-flex items-center gap-1 text-brand-600 hover:underline dark:text-brand-400", className)}
    >
      {text}
      <svg className="size-3.5" viewBox="0 0 20 20" fill="currentColor" aria-hidden="true">
        <path d="M11 3a1 1 0 1 0 0 2h2.59l-6.3 6.29a1 1 0 1 0 1.42 1.42L15 6.41V9a1 1 0 1 0 2 0V4a1 1 0 0 0-1-1h-5Z" />
        <path d="M5 5a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h8a2 2 0 0 0 2-2v-3a1 1 0 1 0-2 0v3H5V7h3a1 1 0 0 0 0-2H5Z" />
      </svg>
      <span className="sr-only">
        {" "}
        ({label.toLowerCase()} {value}, opens the block explorer in a new tab)
      </span>
    </a>
  );
}
