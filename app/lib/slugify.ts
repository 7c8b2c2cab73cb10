/**
 * The editor's slug rule (docs/product.md §9.4): lowercase; drop everything but word characters,
 * spaces and hyphens; each run of whitespace becomes one hyphen; repeated hyphens
 * collapse; no hyphen or space at either end.
 */
export function slugify(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\w\s-]/g, "")
    .trim()
    .replace(/\s+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-+|-+$/g, "");
}
