import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("node-status");
export const action = notImplementedYet("node-status");
