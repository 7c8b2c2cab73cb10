// `npm start`: build when needed, then serve on the embedded defaults (server.js reads .env).
import { buildIfStale } from "./build-if-stale.js";

buildIfStale();
process.env.NODE_ENV ??= "production";
await import("../server.js");
