// Inline messages on the static pages, next to what they are about: a
// `role="status"` region for news, a `role="alert"` one for errors. Both exist, empty, from the
// moment the page is enhanced, so screen readers announce what is later written into them.
import {
  NOTICE_CLASS,
  NOTICE_TITLE_CLASS,
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
