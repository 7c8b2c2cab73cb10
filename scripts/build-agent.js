// Bundles the VPN node agent (agent/index.ts) into one file that plain `node` runs with no
// node_modules beside it: `npm run build:agent` → build/agent/naijalink-agent.mjs (decision 080).
import path from "node:path";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "..");
export const AGENT_BUNDLE = path.join(root, "build/agent/naijalink-agent.mjs");

/** Writes the bundle to `outfile` (default build/agent/naijalink-agent.mjs) and returns its path. */
export async function buildAgent(outfile = AGENT_BUNDLE) {
  await build({
    entryPoints: [path.join(root, "agent/index.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Everything but Node's built-ins goes inside: the VPN host has no node_modules.
    packages: "bundle",
    // prom-client (agent/metrics.ts) is CommonJS and requires Node's built-ins at run time; an ES
    // module bundle has no `require` of its own, so it gets one.
    banner: {
      js: '#!/usr/bin/env node\nimport { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);',
    },
    legalComments: "none",
    logLevel: "warning",
  });
  return outfile;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await buildAgent());
