import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("blog-admin-delete");
export const action = notImplementedYet("blog-admin-delete");
