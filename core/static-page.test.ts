import { describe, expect, it } from "vitest";
import { handle, isStaticPage, loadsAsDocument, type PageHandle } from "./static-page.ts";

const matches = (...handles: Array<PageHandle | undefined>) => [
  { handle: undefined },
  ...handles.map((h) => ({ handle: h })),
];
const blogHandle: PageHandle = { hydrate: false, rendersAfterNavigation: true };

describe("which pages ship React (decisions 012, 085)", () => {
  it("sends a marketing page without React and loads it as a document after a client-side navigation", () => {
    expect(isStaticPage(matches(handle))).toBe(true);
    expect(loadsAsDocument(matches(handle))).toBe(true);
  });

  it("sends a blog page without React but lets React render it after a client-side navigation", () => {
    expect(isStaticPage(matches(blogHandle))).toBe(true);
    expect(loadsAsDocument(matches(blogHandle))).toBe(false);
  });

  it("hydrates every other page", () => {
    expect(isStaticPage(matches(undefined))).toBe(false);
    expect(loadsAsDocument(matches({ perVisitor: true }))).toBe(false);
  });
});
