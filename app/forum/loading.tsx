// Shown while the server fetches the page's data.
export default function Loading() {
  return (
    <div className="mx-auto max-w-5xl animate-pulse px-4 py-8" aria-busy="true" aria-label="Loading">
      <div className="h-7 w-48 rounded bg-zinc-200 dark:bg-zinc-800" />
      <div className="mt-6 space-y-3">
        {Array.from({ length: 5 }, (_, i) => (
          <div key={i} className="h-16 rounded-lg bg-zinc-100 dark:bg-zinc-900" />
        ))}
      </div>
    </div>
  );
}
