// Static pages: rendered on the server like every page, but never hydrated. The
// root layout sends them without React's scripts; their few interactions come from the
// enhancement script (app/enhance/). A client-side navigation to one becomes a document load
// in one place, app/root.tsx — except for the blog's pages, which React may still
// render after a client-side navigation, behind their skeletons.

export interface PageHandle {
  /** false: ship no React to the browser for this page. */
  hydrate?: boolean;
  /**
   * true (with `hydrate: false`): the page shows data (the blog's), so it is not rendered once
   * for the life of the process, and a client-side navigation to it from a hydrated page renders
   * it in the browser, waiting for that data behind its skeleton, instead of loading the document.
   */
  rendersAfterNavigation?: boolean;
  /** true: the page differs per visitor (/check), so the page cache never keeps it. */
  perVisitor?: boolean;
  /**
   * true: the page says whether orders are paused (/pricing), so the page cache keeps it per
   * sales state, checked again every few seconds, instead of for the life of the process.
   */
  showsSalesState?: boolean;
}

/** A static page route's `handle`. */
export const handle: PageHandle = { hydrate: false };

function handles(matches: ReadonlyArray<{ handle?: unknown }>): PageHandle[] {
  return matches.map((match) => (match.handle as PageHandle | undefined) ?? {});
}

/** True when the matched routes ask not to be hydrated: the server sends no React scripts. */
export function isStaticPage(matches: ReadonlyArray<{ handle?: unknown }>): boolean {
  return handles(matches).some((handle) => handle.hydrate === false);
}

/** True when a client-side navigation reached a page that must be loaded as a document. */
export function loadsAsDocument(matches: ReadonlyArray<{ handle?: unknown }>): boolean {
  return handles(matches).some((handle) => handle.hydrate === false && !handle.rendersAfterNavigation);
}
