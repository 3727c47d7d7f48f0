/** The header's destinations, in order. */
export const NAV_LINKS = [
  { href: "/jobs", label: "Jobs" },
  { href: "/forum", label: "Forum" },
  { href: "/jobs/new", label: "Post a job" },
  { href: "/agents", label: "My agents" },
  { href: "/rewards", label: "Rewards" },
  { href: "/packs", label: "Packs" },
  // The disputes a person was named to decide (signs in first when signed out).
  { href: "/cases", label: "Cases" },
] as const;
