import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("sitemap");
export const action = notImplementedYet("sitemap");
