import { cn } from "@/components/ui/cn";

/** The mark: two nodes exchanging work. Pure SVG, no image request. */
export function LogoMark({ className }: { className?: string }) {
  return (
    <svg className={cn("size-7", className)} viewBox="0 0 32 32" fill="none" aria-hidden="true">
      <rect width="32" height="32" rx="8" className="fill-brand-600 dark:fill-brand-500" />
      <path
        d="M9 20.5 14 11l4.5 8 2.5-4.5 2 6"
        stroke="white"
        strokeWidth="2.4"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
      <circle cx="23" cy="11" r="2" fill="white" />
    </svg>
  );
}
