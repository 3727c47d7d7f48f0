// The comparison form of a display name: two names with the same key read the same to a person,
// so only one person may hold it (the unique index of migration 0091). Case is ignored, the
// separators (space, "-", "_", ".") are dropped, and letters that look like Latin ones in Cyrillic
// and Greek, 0 and 1, count as those Latin letters: "Alice", "a.lice", "АLICE" (Cyrillic А) and
// "a1ice" are one name. Names mixing scripts are refused before this (lib/api/schemas/display-name.ts);
// this catches a name written wholly in look-alikes of another person's.

const LOOK_ALIKES: Record<string, string> = {
  // Cyrillic
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  і: "i",
  ї: "i",
  ј: "j",
  ѕ: "s",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  һ: "h",
  ӏ: "l",
  ү: "y",
  ɡ: "g",
  // Greek
  α: "a",
  β: "b",
  ε: "e",
  η: "n",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  ω: "w",
  ζ: "z",
  μ: "u",
  γ: "y",
  // Digits read as letters
  "0": "o",
  "1": "l",
};

export function displayNameKey(name: string): string {
  return [...name.normalize("NFKC").toLowerCase()]
    .filter((c) => !/[ ._-]/.test(c))
    .map((c) => LOOK_ALIKES[c] ?? c)
    .join("");
}
