/** Plain-text helpers for the commands' human output (--json prints the data as is). */

/** Left-aligned columns, widths from the content; long cells are cut with an ellipsis. */
export function table(
  headers: string[],
  rows: Array<Array<string | number | null | undefined>>,
  maxWidth = 60,
): string[] {
  const cells = [
    headers,
    ...rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? "-" : String(cell)))),
  ].map((row) => row.map((cell) => (cell.length > maxWidth ? `${cell.slice(0, maxWidth - 1)}…` : cell)));
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  return cells.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  "));
}

/** "key: value" lines, skipping empty values. */
export function fields(entries: Array<[string, unknown]>): string[] {
  return entries
    .filter(([, value]) => value !== undefined && value !== null && value !== "")
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(", ") : String(value)}`);
}
