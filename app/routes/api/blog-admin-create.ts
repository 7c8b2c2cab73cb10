import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("blog-admin-create");
export const action = notImplementedYet("blog-admin-create");
