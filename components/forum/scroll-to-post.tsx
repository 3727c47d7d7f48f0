"use client";

import { useEffect } from "react";

/**
 * Brings a post into view and gives it focus (so a screen reader lands on it too) after the page
 * arrives: the reply just posted, or the one a link pointed at. The page renders everything else.
 */
export function ScrollToPost({ id }: { id: string }) {
  useEffect(() => {
    const post = document.getElementById(id);
    if (!post) return;
    post.scrollIntoView({ block: "center" });
    post.focus({ preventScroll: true });
  }, [id]);
  return null;
}
