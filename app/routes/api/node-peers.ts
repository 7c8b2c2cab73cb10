import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("node-peers");
export const action = notImplementedYet("node-peers");
