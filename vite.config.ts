import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import { enhancementScript } from "./scripts/vite-enhancement-script.ts";

const alias = {
  "#agent": fileURLToPath(new URL("./agent", import.meta.url)),
  "#app": fileURLToPath(new URL("./app", import.meta.url)),
  "#server": fileURLToPath(new URL("./server", import.meta.url)),
};

export default defineConfig(({ isSsrBuild }) => ({
  resolve: { alias },
  // Bundled into the server build, not imported from node_modules at run time: each package's
  // index loads every module it has (lucide-react ~1,500 icons, react-email every component and
  // its Tailwind compiler), tens of MB of resident memory for the few used (decision 116).
  ssr: { noExternal: ["lucide-react", /^@react-email\/(?!render$)/] },
  build: isSsrBuild ? { rollupOptions: { input: "./server/app.ts" }, target: "node20" } : undefined,
  plugins: [tailwindcss(), reactRouter(), enhancementScript({ entry: "app/enhance/index.ts", alias })],
}));
