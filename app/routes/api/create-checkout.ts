import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("create-checkout");
export const action = notImplementedYet("create-checkout");
