import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("blog-admin-list");
export const action = notImplementedYet("blog-admin-list");
