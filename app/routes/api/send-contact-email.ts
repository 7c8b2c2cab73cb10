import { notImplementedYet } from "#server/http/api.ts";

export const loader = notImplementedYet("send-contact-email");
export const action = notImplementedYet("send-contact-email");
