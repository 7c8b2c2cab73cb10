// Static pages (decision 012): rendered on the server like every page, but never hydrated. The
// root layout sends them without React's scripts; their few interactions come from the
// enhancement script (app/enhance/). A client-side navigation to one becomes a document load
// in one place, app/root.tsx.

export interface PageHandle {
  /** false: ship no React to the browser for this page. */
  hydrate?: boolean;
  /** true: the page differs per visitor (/check), so the page cache never keeps it. */
  perVisitor?: boolean;
}

/** A static page route's `handle`. */
export const handle: PageHandle = { hydrate: false };

/** True when the matched routes ask not to be hydrated. */
export function isStaticPage(matches: ReadonlyArray<{ handle?: unknown }>): boolean {
  return matches.some((match) => (match.handle as PageHandle | undefined)?.hydrate === false);
}
