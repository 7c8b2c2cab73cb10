import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("The RSS feed");
