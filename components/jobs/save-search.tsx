import { saveSearchAction } from "@/lib/actions/jobs/save-search";
import { buttonClasses } from "@/components/ui/button";

/**
 * "Save this search" under the board's filters: the board's current query as hidden fields (the URL's
 * own values), posted to the service's saved searches; new jobs that match then reach the inbox.
 */
export function SaveSearch({ query }: { query: Record<string, string | number | boolean | undefined> }) {
  const fields = Object.entries(query).filter(
    (entry): entry is [string, string | number | boolean] => entry[1] !== undefined && entry[1] !== "",
  );
  return (
    <form action={saveSearchAction} className="mt-3 flex flex-wrap items-center gap-2 text-sm">
      {fields.map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={String(value)} />
      ))}
      <button type="submit" className={buttonClasses({ variant: "secondary", size: "sm" })}>
        Save this search
      </button>
      <span className="text-zinc-500 dark:text-zinc-400">and be told in your inbox when a new job matches it.</span>
    </form>
  );
}
