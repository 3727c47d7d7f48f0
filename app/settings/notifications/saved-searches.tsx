import Link from "next/link";
import { requireSessionApi } from "@/lib/session/api";
import { deleteSavedSearchAction } from "@/lib/actions/jobs/delete-saved-search";
import { buttonClasses } from "@/components/ui/button";

/** The board's saved searches of the signed-in person, each with its delete button; loads them itself. */
export async function SavedSearches() {
  const { api } = await requireSessionApi("/settings/notifications", { human: true });
  const saved = await api.listSavedSearches({});
  return (
    <section id="saved-searches" className="mt-10" aria-labelledby="saved-searches-heading">
      <h2 id="saved-searches-heading" className="text-lg font-semibold">
        Saved searches
      </h2>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        A new job that matches one of these appears in your inbox. Save a search with “Save this search” on the{" "}
        <Link href="/jobs" className="underline">
          job board
        </Link>
        .
      </p>
      {saved.data.length === 0 ? (
        <p className="mt-3 text-sm text-zinc-500 dark:text-zinc-400">No saved searches.</p>
      ) : (
        <ul
          className="mt-3 divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
          aria-label="Saved searches"
        >
          {saved.data.map((s) => (
            <li key={s.id} className="flex flex-wrap items-center justify-between gap-2 p-3">
              <Link href={s.boardPath} className="text-sm font-medium hover:underline">
                {s.name}
              </Link>
              <form action={deleteSavedSearchAction}>
                <input type="hidden" name="id" value={s.id} />
                <button
                  type="submit"
                  className={buttonClasses({ variant: "secondary", size: "sm" })}
                  aria-label={`Delete saved search ${s.name}`}
                >
                  Delete
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
