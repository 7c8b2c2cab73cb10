// Plain text from a post's markdown, for excerpts, meta descriptions, feeds and reading time.
// Browser-safe: the same rules run on the server and in the admin editor.
import type { Nodes, Root } from "mdast";
import { remark } from "remark";
import remarkGfm from "remark-gfm";
import strip from "strip-markdown";

export const EXCERPT_LENGTH = 160;
export const META_DESCRIPTION_LENGTH = 160;
export const ELLIPSIS = "...";
const WORDS_PER_MINUTE = 200;

const processor = remark().use(remarkGfm).use(strip);

/** Block containers whose children are separate blocks: their texts must not run together. */
const BLOCK_PARENTS = new Set(["root", "blockquote", "list", "listItem", "footnoteDefinition"]);

function plainText(node: Nodes): string {
  if ("value" in node && typeof node.value === "string") return node.value;
  if (!("children" in node)) return "";
  const parts = (node.children as Nodes[]).map(plainText);
  return parts.join(BLOCK_PARENTS.has(node.type) ? "\n" : "");
}

/**
 * The post's words with markdown syntax removed (strip-markdown: code blocks, tables and raw
 * HTML disappear, links keep their text, images their alt text). Line breaks between blocks
 * remain; see `collapseWhitespace`. Reads the tree instead of re-serialising it, so no
 * markdown escapes (`\*`) creep into the text.
 */
export function stripMarkdown(markdown: string): string {
  const tree = processor.runSync(processor.parse(markdown)) as Root;
  return plainText(tree).trim();
}

export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The first `length` characters, counted as Unicode code points so no emoji is split in half,
 * without trailing whitespace.
 */
function cut(text: string, length: number): { text: string; wasCut: boolean } {
  const characters = Array.from(text);
  if (characters.length <= length) return { text, wasCut: false };
  // A cut that lands after a space would leave it dangling before the ellipsis.
  return { text: characters.slice(0, length).join("").trimEnd(), wasCut: true };
}

/**
 * Card excerpt: stripped, whitespace collapsed, the first 160 characters and
 * then "..." — the ellipsis is added only when something was cut (decision record 020).
 */
export function excerpt(markdown: string): string {
  const { text, wasCut } = cut(collapseWhitespace(stripMarkdown(markdown)), EXCERPT_LENGTH);
  return wasCut ? `${text}${ELLIPSIS}` : text;
}

/** Meta description: stripped, whitespace collapsed, at most 160 characters, no ellipsis. */
export function metaDescription(markdown: string): string {
  return cut(collapseWhitespace(stripMarkdown(markdown)), META_DESCRIPTION_LENGTH).text;
}

/** Whole minutes at 200 words a minute, never less than one. */
export function readingTimeMinutes(markdown: string): number {
  const words = collapseWhitespace(stripMarkdown(markdown)).split(" ").filter(Boolean).length;
  return Math.max(1, Math.round(words / WORDS_PER_MINUTE));
}
