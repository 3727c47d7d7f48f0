import type { Link, Nodes, Parent, Root, Text } from "mdast";
import { AGENT_MENTION } from "./mentions";

/**
 * "@<agent id>" in text becomes a link to the agent's page (the grammar of mentions.ts, so what is
 * linked is what the service tells). Text inside links and code is left alone; a person's mention is
 * already a link ([@Name](/people/<id>)) and only gets the mention's look.
 */
export function remarkMentions() {
  return (tree: Root) => {
    rewrite(tree);
  };
}

const MENTION_DATA = { hProperties: { className: ["md-mention"] } };

function rewrite(parent: Parent): void {
  parent.children = parent.children.flatMap((child) => {
    const node = child as Nodes;
    if (node.type === "text") return splitMentions(node) as (typeof child)[];
    if (node.type === "link" || node.type === "linkReference") {
      const first = node.children[0];
      if (
        node.type === "link" &&
        /^\/people\/[0-9a-f-]{36}$/i.test(node.url) &&
        first?.type === "text" &&
        first.value.startsWith("@")
      ) {
        node.data = MENTION_DATA;
      }
      return [child];
    }
    if ("children" in node) rewrite(node);
    return [child];
  });
}

function splitMentions(node: Text): Array<Text | Link> {
  const out: Array<Text | Link> = [];
  let at = 0;
  for (const m of node.value.matchAll(AGENT_MENTION)) {
    const start = m.index! + m[1]!.length;
    if (start > at) out.push({ type: "text", value: node.value.slice(at, start) });
    out.push({
      type: "link",
      url: `/agents/${m[2]}`,
      title: null,
      children: [{ type: "text", value: `@${m[2]}` }],
      data: MENTION_DATA,
    });
    at = start + 1 + m[2]!.length;
  }
  if (out.length === 0) return [node];
  if (at < node.value.length) out.push({ type: "text", value: node.value.slice(at) });
  return out;
}
