// Inline messages on the static pages, next to what they are about: a
// `role="status"` region for news, a `role="alert"` one for errors. Both exist, empty, from the
// moment the page is enhanced, so screen readers announce what is later written into them.
import { CLEAR_FLASH_COOKIE, readFlash } from "#app/lib/flash.ts";
import {
  NOTICE_CLASS,
  NOTICE_TITLE_CLASS,
  PAGE_NOTICE_CLASS,
  noticeRole,
  type Message,
  type NoticeRole,
} from "#app/lib/notice.ts";

export interface Notice {
  show(message: Message): void;
  clear(): void;
}

function region(role: NoticeRole): HTMLDivElement {
  const element = document.createElement("div");
  element.setAttribute("role", role);
  return element;
}

const element = (tag: "div" | "p", className: string, text = "") => {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
};

/** Writes `message` into its live region `target` (one box: the title, then the text). */
function write(target: HTMLElement, message: Message): void {
  const box = element("div", NOTICE_CLASS[noticeRole(message)]);
  box.append(element("p", NOTICE_TITLE_CLASS, message.title));
  if (message.description) box.append(element("p", "", message.description));
  target.replaceChildren(box);
}

/** The message regions for `anchor` (a button), placed right after it. */
export function noticeAfter(anchor: Element): Notice {
  const regions = { status: region("status"), alert: region("alert") };
  anchor.after(regions.status, regions.alert);
  const clear = () => {
    regions.status.replaceChildren();
    regions.alert.replaceChildren();
  };
  return {
    show(message) {
      clear();
      write(regions[noticeRole(message)], message);
    },
    clear,
  };
}

/** The message a redirect left in the flash cookie, shown once at the top of the page. */
export function showFlash(): void {
  const flash = readFlash(document.cookie);
  if (!flash) return;
  document.cookie = CLEAR_FLASH_COOKIE;
  const wrapper = element("div", PAGE_NOTICE_CLASS);
  wrapper.dataset.pageNotice = "";
  const message = region(noticeRole(flash));
  write(message, flash);
  wrapper.append(message);
  document.getElementById("main")?.prepend(wrapper);
}
