import { buildIfStale } from "../../scripts/build-if-stale.js";

/** The in-process and browser tests run the built server, so build it first when sources changed. */
export default function setup() {
  buildIfStale();
}
