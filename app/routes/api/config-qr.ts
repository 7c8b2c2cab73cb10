import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("config-qr");
export const action = notImplementedYet("config-qr");
