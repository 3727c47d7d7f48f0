"use server";

import type { ReactNode } from "react";
import { FORUM_LIMITS } from "@/lib/api/schemas/forum";
import { Markdown } from "@/lib/markdown";

/** The live preview renders on the server with the one Markdown configuration: no parser in the browser. */
export async function previewMarkdownAction(source: string): Promise<ReactNode> {
  return <Markdown source={String(source).slice(0, FORUM_LIMITS.bodyMax)} />;
}
