import path from "node:path";
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

const ROOT = import.meta.dirname;

/**
 * One home per rule (decision 127): server/ and agent/ never import app/, and core/ (what the
 * browser and the server both use) imports neither app/ nor server/. Checks `#app/…` and
 * `#server/…` and relative paths, resolved from the importing file, in imports, re-exports and
 * `import()`.
 */
const importBoundary = {
  meta: {
    type: "problem",
    schema: [{ type: "object", properties: { folders: { type: "array", items: { type: "string" } } } }],
    messages: {
      forbidden:
        "{{file}} must not import {{folder}}/ ({{source}}): what the browser and the server both use lives in core/ (#core/*), a server rule under server/ (decision 127).",
    },
  },
  create(context) {
    const folders = context.options[0]?.folders ?? [];
    const file = path.relative(ROOT, context.filename);
    function check(node) {
      const source = node.source;
      if (source?.type !== "Literal" || typeof source.value !== "string") return;
      const specifier = source.value;
      const target = specifier.startsWith("#")
        ? path.join(ROOT, specifier.slice(1))
        : specifier.startsWith(".")
          ? path.resolve(path.dirname(context.filename), specifier)
          : null;
      if (target === null) return;
      const folder = folders.find((name) => (target + path.sep).startsWith(path.join(ROOT, name) + path.sep));
      if (folder)
        context.report({ node: source, messageId: "forbidden", data: { file, folder, source: specifier } });
    }
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default tseslint.config(
  { ignores: ["build/", ".react-router/", "node_modules/", "data/", "server/db/migrations/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "react-hooks/set-state-in-effect": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    plugins: { naijalink: { rules: { "import-boundary": importBoundary } } },
  },
  {
    files: ["server/**/*.{ts,tsx}", "agent/**/*.{ts,tsx}"],
    rules: { "naijalink/import-boundary": ["error", { folders: ["app"] }] },
  },
  {
    files: ["core/**/*.{ts,tsx}"],
    rules: { "naijalink/import-boundary": ["error", { folders: ["app", "server"] }] },
  },
);
