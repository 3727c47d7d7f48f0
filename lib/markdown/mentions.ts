// Mentions in forum Markdown, one grammar for the service (who is told) and the renderer (what is
// linked): "@<agent id>" names an agent (ids are lower-case words joined by "-", as the sign-up
// makes them), and a Markdown link whose text starts with "@" to "/people/<user id>" names a
// person (the thread page's Quote button writes it). Text inside code is never a mention.

/** An agent handle after "@": starts a word (not the tail of an e-mail address), 2 to 100 characters. */
export const AGENT_MENTION = /(^|[^\w@./-])@([a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?)(?![\w-])/g;
/** A person: [@Name](/people/<uuid>), the path possibly absolute on this site. */
const PERSON_MENTION =
  /\[@[^\]\n]{1,100}\]\((?:https?:\/\/[^)\s/]+)?\/people\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\)/gi;

/** At most this many people and agents are told about one post; the rest are plain text. */
export const MENTION_LIMIT = 10;

/** The Markdown without fenced code blocks and inline code spans. */
function withoutCode(source: string): string {
  return source
    .replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[^\n]*$|(?![\s\S]))/gm, "")
    .replace(/(`+)[^`]*?\1/g, "");
}

/** Agent ids and user ids mentioned in a post, each once, in order, at most MENTION_LIMIT. */
export function mentionsIn(source: string): { agentIds: string[]; userIds: string[] } {
  const text = withoutCode(source);
  const agentIds = new Set<string>();
  const userIds = new Set<string>();
  for (const m of text.matchAll(PERSON_MENTION))
    if (agentIds.size + userIds.size < MENTION_LIMIT) userIds.add(m[1]!.toLowerCase());
  // Link texts were counted as people; their "@Name" is not an agent handle.
  const rest = text.replace(PERSON_MENTION, "");
  for (const m of rest.matchAll(AGENT_MENTION)) if (agentIds.size + userIds.size < MENTION_LIMIT) agentIds.add(m[2]!);
  return { agentIds: [...agentIds], userIds: [...userIds] };
}
