import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import { enhancementScript } from "./scripts/vite-enhancement-script.ts";

const alias = {
  "#agent": fileURLToPath(new URL("./agent", import.meta.url)),
  "#app": fileURLToPath(new URL("./app", import.meta.url)),
  "#core": fileURLToPath(new URL("./core", import.meta.url)),
  "#server": fileURLToPath(new URL("./server", import.meta.url)),
};

// Bundled into the server build, not imported from node_modules at run time: each package's
// index loads every module it has (lucide-react ~1,500 icons, react-email every component and its
// Tailwind compiler), tens of MB of resident memory for the few used (decision 116); the auth,
// validation and ORM packages and the markdown stack are ~900 small modules whose per-module
// records and source text cost ~10 MB more (decision 119). Packages that read files beside
// themselves (PGlite, Stripe) or load native code stay external.
const SERVER_BUNDLED_PACKAGES = [
  "lucide-react",
  /^@react-email\/(?!render$)/,
  "better-auth",
  /^@better-auth\//,
  "better-call",
  "kysely",
  "jose",
  /^@noble\//,
  "@opentelemetry/api",
  "zod",
  "drizzle-orm",
  /^(react-markdown|remark|remark-.+|unified|micromark|micromark-.+|mdast-util-.+|hast-util-.+|unist-util-.+|vfile|vfile-message|property-information|devlop|bail|trough|zwitch|ccount|longest-streak|markdown-table|character-entities.*|decode-named-character-reference|comma-separated-tokens|space-separated-tokens|html-url-attributes|trim-lines|is-plain-obj|estree-util-is-identifier-name|stringify-entities|style-to-object|inline-style-parser)$/,
];

export default defineConfig(({ isSsrBuild }) => ({
  resolve: { alias },
  ssr: { noExternal: SERVER_BUNDLED_PACKAGES },
  build: isSsrBuild ? { rollupOptions: { input: "./server/app.ts" }, target: "node20" } : undefined,
  plugins: [tailwindcss(), reactRouter(), enhancementScript({ entry: "app/enhance/index.ts", alias })],
}));
