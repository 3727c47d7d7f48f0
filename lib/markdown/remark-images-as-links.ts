import type { Image, ImageReference, Link, LinkReference, Nodes, Parent, Root, Text } from "mdast";

/**
 * Images are off in user content (they leak readers' IPs to whoever hosts them and can be
 * misleading screenshots of the UI). This remark plugin turns every image into an ordinary link
 * to its URL, labelled by its alt text, so the same link checks apply to it; an image inside a
 * link (a linked badge) becomes its alt text, because links cannot nest.
 */
export function remarkImagesAsLinks() {
  return (tree: Root) => {
    rewrite(tree, false);
  };
}

const IMAGE_LINK_DATA = { hProperties: { className: ["md-image-link"] } };

function rewrite(parent: Parent, insideLink: boolean): void {
  parent.children = parent.children.map((child) => {
    const node = child as Nodes;
    if (node.type === "image" || node.type === "imageReference") {
      return replaceImage(node, insideLink) as typeof child;
    }
    if ("children" in node) {
      rewrite(node, insideLink || node.type === "link" || node.type === "linkReference");
    }
    return child;
  });
}

function replaceImage(node: Image | ImageReference, insideLink: boolean): Text | Link | LinkReference {
  const label = node.alt?.trim() || (node.type === "image" ? node.url : (node.label ?? node.identifier)) || "image";
  const text: Text = { type: "text", value: label };
  if (insideLink) return text;
  if (node.type === "image") {
    return { type: "link", url: node.url, title: node.title ?? null, children: [text], data: IMAGE_LINK_DATA };
  }
  return {
    type: "linkReference",
    identifier: node.identifier,
    label: node.label,
    referenceType: node.referenceType,
    children: [text],
    data: IMAGE_LINK_DATA,
  };
}
