// The progressive-enhancement script of the static (not hydrated) pages, decision 012.
//
// `import enhancementScriptUrl from "virtual:enhancement-script"` gives the URL to put in
// `<script type="module" src>`:
// - in development, the source file itself, which Vite's dev server transforms on request;
// - in a build, one self-contained minified file `assets/enhance-<content hash>.js`, bundled by
//   its own Vite build (nothing shared with React's chunks, so the pages that load it load
//   nothing else) and served as immutable like every other asset. The client and the server
//   builds bundle the same input the same way, so both name the same file.
import crypto from "node:crypto";
import path from "node:path";
import { build, type Plugin, type Rollup } from "vite";

const VIRTUAL_ID = "virtual:enhancement-script";
const RESOLVED_ID = `\0${VIRTUAL_ID}`;

export function enhancementScript(options: {
  /** The entry module, relative to the project root. */
  entry: string;
  alias: Record<string, string>;
}): Plugin {
  let root = process.cwd();
  let base = "/";
  let command: "build" | "serve" = "build";
  let ssrBuild = false;
  let bundled: Promise<{ fileName: string; code: string }> | undefined;

  async function bundle(): Promise<{ fileName: string; code: string }> {
    const result = (await build({
      configFile: false,
      root,
      logLevel: "warn",
      resolve: { alias: options.alias },
      build: {
        write: false,
        target: "es2020",
        modulePreload: false,
        rollupOptions: {
          input: path.resolve(root, options.entry),
          output: { format: "es", inlineDynamicImports: true },
        },
      },
    })) as Rollup.RollupOutput | Rollup.RollupOutput[];
    const output = Array.isArray(result) ? result[0]! : result;
    const chunk = output.output.find((item): item is Rollup.OutputChunk => item.type === "chunk");
    if (!chunk) throw new Error(`enhancement script: bundling ${options.entry} produced no chunk`);
    const hash = crypto.createHash("sha256").update(chunk.code).digest("hex").slice(0, 10);
    return { fileName: `assets/enhance-${hash}.js`, code: chunk.code };
  }

  return {
    name: "naijalink:enhancement-script",
    configResolved(config) {
      root = config.root;
      base = config.base;
      command = config.command;
      ssrBuild = Boolean(config.build.ssr);
    },
    resolveId(id) {
      return id === VIRTUAL_ID ? RESOLVED_ID : undefined;
    },
    async load(id) {
      if (id !== RESOLVED_ID) return undefined;
      if (command === "serve") {
        return `export default ${JSON.stringify(path.posix.join(base, options.entry))};`;
      }
      bundled ??= bundle();
      const { fileName, code } = await bundled;
      // The file belongs to the client build; the server build only needs its name.
      if (!ssrBuild) this.emitFile({ type: "asset", fileName, source: code });
      return `export default ${JSON.stringify(path.posix.join(base, fileName))};`;
    },
  };
}
