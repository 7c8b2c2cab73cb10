import { describe, expect, it } from "vitest";
import {
  collapseWhitespace,
  excerpt,
  metaDescription,
  readingTimeMinutes,
  stripMarkdown,
} from "./markdown.ts";

describe("plain text from markdown", () => {
  it("removes markdown syntax but keeps the words, link text and image alt text", () => {
    const text = collapseWhitespace(
      stripMarkdown(
        "# Title\n\n**bold** _em_ ~~del~~ `code` [link](https://x.example) ![alt text](/a.png)\n\n> quote\n\n- a\n- [x] b",
      ),
    );
    expect(text).toBe("Title bold em del code link alt text quote a b");
  });

  it("drops code blocks, tables, footnote definitions and raw HTML entirely", () => {
    const text = collapseWhitespace(
      stripMarkdown(
        "Before.[^1]\n\n```js\nsecret()\n```\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n<script>alert(1)</script>\n\n[^1]: note\n\nAfter.",
      ),
    );
    expect(text).toBe("Before. After.");
  });

  it("does not add markdown escapes to characters such as * and _", () => {
    expect(stripMarkdown("snake_case and 2 \\* 3 and a_b_c")).toBe("snake_case and 2 * 3 and a_b_c");
  });
});

describe("excerpt", () => {
  it("is the whole text, without an ellipsis, when it fits in 160 characters", () => {
    const text = "a".repeat(160);
    expect(excerpt(text)).toBe(text);
  });

  it("is the first 160 characters plus ... when the text is longer", () => {
    const text = `${"a".repeat(160)}b`;
    expect(excerpt(text)).toBe(`${"a".repeat(160)}...`);
  });

  it("counts an emoji as one character and never splits it", () => {
    const text = "😀".repeat(161);
    expect(excerpt(text)).toBe(`${"😀".repeat(160)}...`);
  });
});

describe("meta description", () => {
  it("collapses whitespace and cuts to at most 160 characters without an ellipsis", () => {
    const description = metaDescription(`Line one\n\n line \t two ${"word ".repeat(100)}`);
    expect(description.startsWith("Line one line two word word")).toBe(true);
    expect(description.length).toBeLessThanOrEqual(160);
    expect(description).not.toMatch(/\s{2}|\.\.\.$|\s$/);
  });
});

describe("reading time", () => {
  it("is words / 200, rounded, at least one minute", () => {
    expect(readingTimeMinutes("short")).toBe(1);
    expect(readingTimeMinutes("word ".repeat(1000))).toBe(5);
  });
});
