import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("blog-admin-update");
export const action = notImplementedYet("blog-admin-update");
