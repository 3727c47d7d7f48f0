export { Markdown, LINK_REL, type MarkdownProps } from "./markdown";
export { plainTextExcerpt } from "./excerpt";
export { safeHref, type SafeHref } from "./safe-href";
export { MARKDOWN_MAX_NESTING, MARKDOWN_NESTING_RULE, nestsTooDeep } from "./nesting";
