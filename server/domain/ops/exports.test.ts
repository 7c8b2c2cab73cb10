import { describe, expect, it } from "vitest";
import { csvText } from "./exports.ts";

/** The one cell of a one-column CSV, as a spreadsheet would read its text. */
const cellOf = (value: string) => {
  const text = csvText([[value]], ["name"], false).replace(/\r\n$/, "");
  return text.startsWith('"') ? text.slice(1, -1).replaceAll('""', '"') : text;
};

describe("CSV cells a spreadsheet would run as a formula", () => {
  it("escapes a formula behind leading invisible characters, as it escapes a bare one", () => {
    const formula = '=HYPERLINK("http://evil.example","Ada")';
    for (const invisible of [
      "",
      "\u200b", // zero-width space
      "\ufeff", // byte-order mark
      "\u200c\u200d", // zero-width non-joiner and joiner
      "\u2060", // word joiner
      "\u200e\u200f\u202e", // direction marks and override
      "\u00a0", // no-break space
      "\u3000", // ideographic space
      "\u00ad", // soft hyphen
      "\u3164", // Hangul filler
      " ",
      "\u0001\n",
      "\ufeff\u200b\u00a0",
    ]) {
      for (const start of ["=", "+", "-", "@", "\t=", "\r="]) {
        const hostile = `${invisible}${start}${formula.slice(1)}`;
        expect(cellOf(hostile), JSON.stringify(hostile)).toBe(`'${start}${formula.slice(1)}`);
      }
    }
  });

  it("keeps ordinary text as it is, and drops only the invisible characters that lead", () => {
    expect(cellOf("Ada Obi")).toBe("Ada Obi");
    expect(cellOf("\u200bAda")).toBe("Ada");
    expect(cellOf("Ada\u200b=1")).toBe("Ada\u200b=1");
    expect(cellOf("Ngozi, Lagos")).toBe("Ngozi, Lagos");
    expect(csvText([[-5, 3.5, true]], ["a", "b", "c"], false)).toBe("-5,3.5,true\r\n");
  });
});
