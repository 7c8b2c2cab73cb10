import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("webhooks-stripe");
export const action = notImplementedYet("webhooks-stripe");
