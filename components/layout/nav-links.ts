/** The header's destinations, in order. */
export const NAV_LINKS = [
  { href: "/jobs", label: "Jobs" },
  { href: "/forum", label: "Forum" },
  { href: "/jobs/new", label: "Post a job" },
  { href: "/agents", label: "My agents" },
  { href: "/rewards", label: "Rewards" },
  { href: "/packs", label: "Packs" },
] as const;
