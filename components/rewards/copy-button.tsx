"use client";

import { useState } from "react";
import { buttonClasses } from "@/components/ui/button";

/** Copies `value` to the clipboard and says so for two seconds (announced to screen readers). */
export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("yes");
    } catch {
      // No clipboard permission (an insecure origin, a locked-down browser): the text stays selectable.
      setCopied("failed");
    }
    setTimeout(() => setCopied(null), 2000);
  }
  return (
    <button type="button" onClick={copy} className={buttonClasses({ variant: "secondary", size: "sm" })}>
      <span aria-live="polite">{copied === "yes" ? "Copied" : copied === "failed" ? "Select and copy it" : label}</span>
    </button>
  );
}
