import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The repository stands alone: every section reference, markdown link and decision number in the
// code and the docs names something that exists here, and docs/decisions/README.md indexes every
// decision record with what amends or replaces it.
//
// How a reference is written (docs/product.md, "Citing it"):
// - A path, a space, the section sign and a number: `docs/product.md §4.2` is the heading
//   numbered 4.2 ("## 4. …", "### 4.2 …") of that markdown file, its path from the repository's
//   root (or, in a markdown file, from its own folder). More numbers may follow in the same run:
//   `docs/product.md §4.2, §4.3 and §8`, or a range `docs/product.md §4.1 to §4.3`.
// - The sign and a number alone is a heading of the same file in a markdown file, and an error
//   (it names no file) anywhere else. After "RFC <n>" it cites an RFC and is not checked.
// - A relative markdown link `[text](target#anchor)` names a file that exists and, with an
//   anchor, a heading of it (GitHub's anchors).
// - "decision NNN" (or "decisions NNN, MMM and KKK") names a record in docs/decisions.
// - Nothing cites the specification or the design notes that lived outside the repository.
// This file spells its made-up references apart (SECTION, "DES" + "IGN") so that its own text holds none.

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SECTION = "\u00a7";
const CODE_FOLDERS = ["app", "server", "agent", "scripts", "bench", "tests", "deploy"];
const SKIPPED = new Set(["node_modules", ".git", "build", "data", ".react-router", "coverage", "public"]);
const DECISIONS = "docs/decisions";

type Lookup = (file: string) => string | null;

const diskTexts = new Map<string, string | null>();
const fromDisk: Lookup = (file) => {
  if (!diskTexts.has(file)) {
    const full = path.join(ROOT, file);
    diskTexts.set(file, existsSync(full) && statSync(full).isFile() ? readFileSync(full, "utf8") : null);
  }
  return diskTexts.get(file)!;
};

function walk(folder: string, keep: (file: string) => boolean): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, folder), { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const file = path.posix.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...walk(file, keep));
    else if (entry.isFile() && keep(file)) found.push(file);
  }
  return found;
}

/** The code folders' text files and every markdown file of the repository. */
function scannedFiles(): string[] {
  const code = CODE_FOLDERS.flatMap((folder) =>
    walk(folder, (file) => /\.(tsx?|m?js|cjs|sh|sql|json|ya?ml|service|md|txt|conf)$|Caddyfile/.test(file)),
  );
  const markdown = walk(".", (file) => file.endsWith(".md")).map((file) => path.posix.normalize(file));
  return [...new Set([...code, ...markdown])].sort();
}

const withoutFences = (text: string) => text.replace(/^```[\s\S]*?^```/gm, "");

/** The numbers of a markdown file's numbered headings ("## 4. Purchase flow" → "4"). */
function headingNumbers(markdown: string): Set<string> {
  const numbers = new Set<string>();
  for (const [, number] of withoutFences(markdown).matchAll(/^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s/gm))
    numbers.add(number!);
  return numbers;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

function anchors(markdown: string): Set<string> {
  return new Set(
    [...withoutFences(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)].map(([, text]) => anchorOf(text!)),
  );
}

/** Where a path named in `file` points: from the root, or (markdown) from the file's folder. */
function resolvePath(file: string, target: string, lookup: Lookup): string | null {
  const candidates = [path.posix.normalize(target)];
  if (file.endsWith(".md"))
    candidates.unshift(path.posix.normalize(path.posix.join(path.posix.dirname(file), target)));
  return candidates.find((candidate) => lookup(candidate) !== null) ?? null;
}

const NUMBER = String.raw`\d+(?:\.\d+)*`;
const RUN = new RegExp(
  String.raw`(?:(RFC\s+\d+)|([\w./-]+\.md))?\s*${SECTION}\s*(${NUMBER})((?:\s*(?:,|and|or|to|/)\s*${SECTION}\s*${NUMBER})*)`,
  "g",
);
const FORBIDDEN = [
  new RegExp(String.raw`\bspec(?:ification)?'?s?\s+${SECTION}`, "i"),
  /\bDESIGN(?:\.md)?\b/,
  /\.\.\/shared\b/,
];

/** Every broken reference of one file's text, as "file:line: what". */
export function brokenReferences(file: string, text: string, lookup: Lookup = fromDisk): string[] {
  const problems: string[] = [];
  const lines = text.split("\n");
  const isMarkdown = file.endsWith(".md");
  lines.forEach((line, index) => {
    const at = `${file}:${index + 1}`;
    for (const pattern of FORBIDDEN)
      if (pattern.test(line))
        problems.push(`${at}: cites a document outside the repository (${pattern.source})`);

    // Most lines hold no reference at all; the patterns below are costly on long lines (JSON).
    if (line.includes(SECTION)) checkSections();
    if (/decision/i.test(line)) checkDecisions();

    function checkSections() {
      for (const [, rfc, named, first, rest] of line.matchAll(RUN)) {
        if (rfc) continue;
        const numbers = [
          first!,
          ...[...rest!.matchAll(new RegExp(`${SECTION}\\s*(${NUMBER})`, "g"))].map((m) => m[1]!),
        ];
        let target: string | null;
        if (named) {
          target = resolvePath(file, named, lookup);
          if (!target) {
            problems.push(`${at}: ${named} ${SECTION}${first} names a file that does not exist`);
            continue;
          }
        } else if (isMarkdown) target = file;
        else {
          problems.push(`${at}: ${SECTION}${first} names no file (write <path> ${SECTION}${first})`);
          continue;
        }
        const known = headingNumbers(target === file ? text : lookup(target)!);
        for (const number of numbers)
          if (!known.has(number)) problems.push(`${at}: ${target} has no heading ${SECTION}${number}`);
      }
      const sections = line.split(SECTION).length - 1;
      const parsed = [...line.matchAll(RUN)].reduce((sum, m) => sum + (m[0].split(SECTION).length - 1), 0);
      if (sections > parsed) problems.push(`${at}: a ${SECTION} without a section number`);
    }

    function checkDecisions() {
      for (const [, numberList] of line.matchAll(
        /\bdecisions?\s+(?:records?\s+)?(\d{3}(?:(?:\s*(?:,|and|or|\/|–)\s*)\d{3})*)\b/gi,
      ))
        for (const [number] of numberList!.matchAll(/\d{3}/g))
          if (!decisionFiles().some((name) => name.startsWith(`${number}-`)))
            problems.push(`${at}: decision ${number} does not exist in ${DECISIONS}`);
    }
  });

  if (isMarkdown)
    for (const [, target] of withoutFences(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!) || target!.startsWith("/")) continue;
      const [filePart, anchor] = target!.split("#") as [string, string | undefined];
      const linked = filePart ? resolvePath(file, filePart, lookup) : file;
      if (!linked) {
        // A folder is a fine link target.
        if (!existsSync(path.join(ROOT, path.posix.dirname(file), filePart)))
          problems.push(`${file}: link to ${target} names a file that does not exist`);
        continue;
      }
      if (anchor && !anchors(linked === file ? text : lookup(linked)!).has(anchor))
        problems.push(`${file}: link to ${target} names a heading that does not exist`);
    }
  return problems;
}

let decisionNames: string[] | null = null;
function decisionFiles(): string[] {
  decisionNames ??= readdirSync(path.join(ROOT, DECISIONS));
  return decisionNames;
}

/** The numbers a Status paragraph's sentences relate to this record, by direction. */
export function statusRelations(status: string): { later: string[]; earlier: string[] } {
  const plain = status.replace(/\([^)]*\)/g, "").replace(/`[^`]*`/g, "");
  const later: string[] = [];
  const earlier: string[] = [];
  for (const sentence of plain.split(/[.;](?:\s|$)/)) {
    const back = /\b(?:amended|superseded|replaced)(?:\s+in\s+part)?\s+by\b([\s\S]*)/i.exec(sentence);
    if (back) later.push(...(back[1]!.match(/\b\d{3}\b/g) ?? []));
    const forward = /\b(?:amends|supersedes|replaces|refines|extends|adds to)\b([\s\S]*)/i.exec(
      back ? sentence.slice(0, back.index) : sentence,
    );
    if (forward) earlier.push(...(forward[1]!.match(/\b\d{3}\b/g) ?? []));
  }
  return { later, earlier };
}

/** A record's Status paragraph: the line starting "Status:" and those after it up to a blank line. */
const statusOf = (record: string) => /^Status:.*(?:\n(?!\s*\n).*)*/m.exec(record)?.[0] ?? "";

describe("references", () => {
  it("every section reference, relative link and decision number in the code and the docs exists", () => {
    const files = scannedFiles();
    expect(files).toContain("docs/product.md");
    expect(files.length).toBeGreaterThan(300);
    const problems = files.flatMap((file) =>
      brokenReferences(file, readFileSync(path.join(ROOT, file), "utf8")),
    );
    expect(problems).toEqual([]);
  });

  it("finds made-up references (fixtures, not files)", () => {
    const S = SECTION;
    const code = (text: string) => brokenReferences("server/example.ts", text);
    expect(code(`// docs/product.md ${S}4.2 and docs/operating.md ${S}5`)).toEqual([]);
    expect(code(`// docs/product.md ${S}4.2, ${S}8 and ${S}2.11`)).toEqual([]);
    expect(code(`// RFC 9110 ${S}13.1.2, decision 064`)).toEqual([]);
    expect(code(`// docs/product.md ${S}99.9`)).toEqual([
      `server/example.ts:1: docs/product.md has no heading ${S}99.9`,
    ]);
    expect(code(`// docs/product.md ${S}4.2 and ${S}77`)).toEqual([
      `server/example.ts:1: docs/product.md has no heading ${S}77`,
    ]);
    expect(code(`// docs/nowhere.md ${S}1`)).toEqual([
      `server/example.ts:1: docs/nowhere.md ${S}1 names a file that does not exist`,
    ]);
    expect(code(`// see ${S}3`)).toEqual([`server/example.ts:1: ${S}3 names no file (write <path> ${S}3)`]);
    expect(code(`// see ${S}"Navigation"`)).toEqual([`server/example.ts:1: a ${S} without a section number`]);
    const none = "9" + "99"; // spelled apart, so that this file cites no missing record itself
    expect(code(`// decision ${none} says so`)).toEqual([
      `server/example.ts:1: decision ${none} does not exist in ${DECISIONS}`,
    ]);
    expect(code(`// decisions 064, ${none} and 078`)).toEqual([
      `server/example.ts:1: decision ${none} does not exist in ${DECISIONS}`,
    ]);
    expect(code(`// spec ${S}4`)[0]).toMatch(/cites a document outside the repository/);
    expect(code("// as DES" + "IGN.md wants")[0]).toMatch(/cites a document outside the repository/);
    expect(code("// see .." + "/shared/x")[0]).toMatch(/cites a document outside the repository/);

    const doc = (text: string) => brokenReferences("docs/example.md", text);
    const own = `# Example\n\n## 1. One\n\n### 1.2 Two\n\n`;
    expect(doc(`${own}As ${S}1.2 says; [the guide](operating.md#5-the-vpn-node), [one](#12-two).`)).toEqual(
      [],
    );
    expect(doc(`${own}As ${S}3 says.`)).toEqual([`docs/example.md:7: docs/example.md has no heading ${S}3`]);
    expect(doc(`${own}[gone](missing.md) [bad](operating.md#99-nothing) [here](#no-such)`)).toEqual([
      "docs/example.md: link to missing.md names a file that does not exist",
      "docs/example.md: link to operating.md#99-nothing names a heading that does not exist",
      "docs/example.md: link to #no-such names a heading that does not exist",
    ]);
  });

  it("reads a Status line's relations in both directions", () => {
    expect(
      statusRelations(
        "Status: accepted (2026-11-24). Replaces 068's exception. Amended by 098: the areas queue (see 031).",
      ),
    ).toEqual({ later: ["098"], earlier: ["068"] });
    expect(
      statusRelations("Status: accepted. Extends 012 to the blog and amends 013; 021–023 unchanged."),
    ).toEqual({
      later: [],
      earlier: ["012", "013"],
    });
  });

  it("docs/decisions/README.md indexes every record with its title and what amends or replaces it", () => {
    const records = readdirSync(path.join(ROOT, DECISIONS))
      .filter((name) => /^\d{3}-.+\.md$/.test(name))
      .sort();
    expect(records.length).toBeGreaterThan(90);
    const index = readFileSync(path.join(ROOT, DECISIONS, "README.md"), "utf8");
    const rows = new Map(
      [...index.matchAll(/^\|\s*\[(\d{3})\]\(([^)]+)\)\s*\|\s*((?:[^|\\]|\\.)+?)\s*\|\s*(.+?)\s*\|$/gm)].map(
        ([, number, file, title, status]) => [
          file!,
          { number: number!, title: title!.replace(/\\\|/g, "|"), status: status! },
        ],
      ),
    );
    expect([...rows.keys()].sort()).toEqual(records);

    const expected = new Map(records.map((file) => [file.slice(0, 3), new Set<string>()]));
    const texts = new Map(
      records.map((file) => [file, readFileSync(path.join(ROOT, DECISIONS, file), "utf8")]),
    );
    for (const [file, text] of texts) {
      const { later, earlier } = statusRelations(statusOf(text));
      for (const number of later) expected.get(file.slice(0, 3))!.add(number);
      for (const number of earlier) expected.get(number)?.add(file.slice(0, 3));
    }
    const mismatches: string[] = [];
    for (const [file, row] of rows) {
      const text = texts.get(file)!;
      const heading = /^# \d{3}\s*[—.-]\s*(.+)$/m.exec(text)?.[1];
      if (row.number !== file.slice(0, 3) || row.title !== heading)
        mismatches.push(`${file}: the index says ${row.number} "${row.title}", the record "${heading}"`);
      const listed = new Set(row.status.match(/\b\d{3}\b/g) ?? []);
      const wanted = expected.get(file.slice(0, 3))!;
      if ([...wanted].sort().join() !== [...listed].sort().join())
        mismatches.push(
          `${file}: the index lists ${[...listed].join(", ") || "nothing"}, the Status lines ${[...wanted].join(", ") || "nothing"}`,
        );
      if (
        /^accepted$|^(amended|replaced in part) by \d{3}/.test(row.status) === /^replaced by/.test(row.status)
      )
        mismatches.push(
          `${file}: status "${row.status}" is none of accepted / amended by / replaced (in part) by`,
        );
      if (/^replaced by/.test(row.status) && !/\bReplaced by \d{3}/.test(statusOf(text)))
        mismatches.push(`${file}: replaced, but its Status line does not say "Replaced by"`);
      if (wanted.size === 0 && row.status !== "accepted")
        mismatches.push(`${file}: nothing amends it, yet "${row.status}"`);
    }
    expect(mismatches).toEqual([]);
  });
});
