import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("auth");
export const action = notImplementedYet("auth");
