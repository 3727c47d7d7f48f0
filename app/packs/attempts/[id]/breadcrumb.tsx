import Link from "next/link";

/** The way back from an attempt: the packs, and the attempt's own pack when it is known. */
export function Breadcrumb({ pack }: { pack?: { href: string; title: string } }) {
  return (
    <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
      <Link href="/packs" className="hover:underline">
        Certification packs
      </Link>
      {pack ? (
        <>
          {" "}
          ·{" "}
          <Link href={pack.href} className="hover:underline">
            {pack.title}
          </Link>
        </>
      ) : null}
    </nav>
  );
}
