import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Issue 27: the app changes things through route actions and forms, which work without
// JavaScript. The only hand-written browser calls left are the storefront's own (create-checkout,
// verify-payment, the config download and its QR code); the staff blog list is its page's
// loader's (issue 36). app/enhance/, the static pages' one script, is outside React Router and posts the contact form.

const APP = fileURLToPath(new URL(".", import.meta.url));

const ALLOWED_CALLS = [
  "components/purchase/config-card.tsx: qrUrlOf(downloadUrl)",
  "components/purchase/config-card.tsx: sameOriginUrl(downloadUrl)",
  'components/purchase/verification.ts: "/api/verify-payment"',
  'routes/get-started-payment.tsx: "/api/create-checkout"',
];

function appSources(): string[] {
  return readdirSync(APP, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(APP, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.startsWith(`enhance${path.sep}`));
}

/** Each `fetch(` in the file, by its first argument as written. */
function fetchCalls(file: string): string[] {
  const text = readFileSync(path.join(APP, file), "utf8");
  return [...text.matchAll(/\bfetch\(\s*([^,\n]+)/g)].map((match) => `${file}: ${match[1]!.trim()}`);
}

describe("browser calls", () => {
  it("posts nothing with a hand-written fetch outside the storefront's own calls", () => {
    const files = appSources();
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(fetchCalls).sort()).toEqual(ALLOWED_CALLS);
  });
});
