import { z } from "zod";

/** What a display name may be: one text for the route, the schema and the settings page. */
export const DISPLAY_NAME_LIMITS = { min: 3, max: 40 } as const;

export const DISPLAY_NAME_RULE =
  `A display name is ${DISPLAY_NAME_LIMITS.min} to ${DISPLAY_NAME_LIMITS.max} characters: letters, digits (0-9), spaces, "-", "_" and "." ` +
  "(no space at either end, nor two in a row; surrounding spaces are trimmed). Letters may be of any one script (a name mixing Latin with Cyrillic or Greek letters is refused, " +
  "as are compatibility forms such as full-width letters, and anything invisible or that reverses the text's direction). It must not look like a wallet address (0x…). " +
  "Names are unique among people without regard to case, and names that read the same (Cyrillic or Greek look-alikes of Latin letters, 0 for o, 1 for l, and the separators -, _, . and space) count as the same name: 409 DISPLAY_NAME_TAKEN. " +
  "Shown wherever the person appears, with their address beside it.";

// Letters of one writing system; Japanese mixes Han with its two kana, Korean Han with Hangul.
const SCRIPTS: Array<[string, RegExp]> = [
  ["Latin", /\p{Script=Latin}/u],
  ["Cyrillic", /\p{Script=Cyrillic}/u],
  ["Greek", /\p{Script=Greek}/u],
  ["Han", /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u],
  ["Arabic", /\p{Script=Arabic}/u],
  ["Hebrew", /\p{Script=Hebrew}/u],
  ["Devanagari", /\p{Script=Devanagari}/u],
  ["Thai", /\p{Script=Thai}/u],
  ["Armenian", /\p{Script=Armenian}/u],
  ["Georgian", /\p{Script=Georgian}/u],
];

const scriptOf = (letter: string) => SCRIPTS.find(([, pattern]) => pattern.test(letter))?.[0] ?? "other";

/** The problem with a (trimmed) display name, or null when it is a good one. */
export function displayNameProblem(name: string): string | null {
  const length = [...name].length;
  if (length < DISPLAY_NAME_LIMITS.min) return `must be at least ${DISPLAY_NAME_LIMITS.min} characters`;
  if (length > DISPLAY_NAME_LIMITS.max) return `must be at most ${DISPLAY_NAME_LIMITS.max} characters`;
  // Letters of any script, ASCII digits, space and three separators: no marks, no invisible or
  // direction-changing characters, no symbols, no other digits.
  if (!/^[\p{L}0-9 ._-]+$/u.test(name))
    return 'may contain only letters, digits (0-9), spaces, "-", "_" and "." (no invisible or direction characters, no symbols)';
  if (name !== name.normalize("NFKC")) return "must be written in plain letters (no full-width or compatibility forms)";
  if (/ {2}/.test(name)) return "must not contain two spaces in a row";
  if (/^0x[0-9a-f]/i.test(name)) return "must not look like a wallet address";
  const scripts = new Set([...name].filter((c) => /\p{L}/u.test(c)).map(scriptOf));
  if (scripts.size > 1)
    return "must use the letters of one script (no Latin mixed with Cyrillic or Greek, for example)";
  if (scripts.size === 0) return "must contain at least one letter";
  return null;
}

export const DisplayName = z
  .string()
  .trim()
  .superRefine((name, ctx) => {
    const problem = displayNameProblem(name);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** PATCH /v1/me */
export const UpdateMeRequest = z.strictObject({ displayName: DisplayName }).meta({ description: DISPLAY_NAME_RULE });
