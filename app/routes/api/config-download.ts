import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("config-download");
export const action = notImplementedYet("config-download");
