import type { Metadata } from "next";

// Deliberately empty: the baseline for page-weight measurements (first-load JS of the framework
// and the root layout alone). Every other page is compared against it, so do not add content: its
// one heading, for screen readers, is server-rendered text and ships no JavaScript.

export const metadata: Metadata = { title: "Empty", robots: { index: false, follow: false } };

export default function EmptyPage() {
  return <h1 className="sr-only">Empty page</h1>;
}
