// The inline messages of the static pages: a status for news, an alert for an
// error, next to what they are about. Shared by the enhancement script, which shows them, and
// by the root layout, which renders a flash into a static page rendered for its request.
import type { Flash } from "#server/http/flash.ts";

export type Message = Flash;
export type NoticeRole = "status" | "alert";

export const noticeRole = (message: Pick<Message, "type">): NoticeRole =>
  message.type === "error" ? "alert" : "status";

/**
 * The box of a message, inside its live region. The region itself stays unstyled and in the
 * accessibility tree while empty (a hidden one would not be announced when it fills).
 */
export const NOTICE_CLASS: Record<NoticeRole, string> = {
  status: "mt-3 rounded-md border border-primary/40 bg-accent px-4 py-3 text-sm text-foreground",
  alert: "mt-3 rounded-md border border-destructive/40 bg-destructive/5 px-4 py-3 text-sm text-destructive",
};

export const NOTICE_TITLE_CLASS = "font-semibold";

/** Where a page-wide message (a flash) sits: the top of `<main>`. */
export const PAGE_NOTICE_CLASS = "mx-auto max-w-6xl px-4 pt-3";
