import { describe, expect, it } from "vitest";
import { slugify } from "./slugify.ts";

describe("the editor's slug rule", () => {
  it("lowercases and joins words with hyphens", () => {
    expect(slugify("Watch DSTV Abroad")).toBe("watch-dstv-abroad");
  });

  it("drops punctuation but keeps word characters, underscores and hyphens", () => {
    expect(slugify("What's new? 50% off: Showmax & DSTV!")).toBe("whats-new-50-off-showmax-dstv");
    expect(slugify("snake_case stays")).toBe("snake_case-stays");
    expect(slugify("Crème brûlée")).toBe("crme-brle");
  });

  it("turns a run of spaces, tabs or newlines into one hyphen", () => {
    expect(slugify("many    spaces\t\tand\nlines")).toBe("many-spaces-and-lines");
  });

  it("collapses repeated hyphens, including those left by removed punctuation", () => {
    expect(slugify("a -- b---c")).toBe("a-b-c");
    expect(slugify("before - & - after")).toBe("before-after");
  });

  it("trims leading and trailing spaces and hyphens", () => {
    expect(slugify("   padded title   ")).toBe("padded-title");
    expect(slugify("--- Hyphens around ---")).toBe("hyphens-around");
    expect(slugify("!!! Shout !!!")).toBe("shout");
  });

  it("gives an empty slug for a title with no word characters", () => {
    expect(slugify("?! ...")).toBe("");
  });
});
