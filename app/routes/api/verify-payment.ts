import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("verify-payment");
export const action = notImplementedYet("verify-payment");
