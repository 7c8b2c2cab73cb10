// Toasts for the static pages that look, move and read like the sonner toasts of the hydrated
// pages (`<Toaster richColors position="top-right" closeButton />`): the same markup and data
// attributes, a copy of the part of sonner's stylesheet that this configuration uses, the same
// 4 s lifetime paused while hovered or focused, three visible and stacked, expanded on hover.
// Screen readers hear them through the same polite live region, present from page load.

/** sonner's other types (info, warning...) arrive here only by handover, shown plain. */
type ToastType = "success" | "error" | "default";

const LIFETIME_MS = 4000;
const VISIBLE_TOASTS = 3;
const GAP_PX = 14;
const REMOVE_AFTER_MS = 200;

// sonner 2's styles.css, light theme, top-right, rich colours (success and error), close button.
const CSS = `[data-sonner-toaster]{--toast-icon-margin-start:-3px;--toast-icon-margin-end:4px;--toast-svg-margin-start:-1px;--toast-svg-margin-end:0px;--toast-close-button-start:0;--toast-close-button-end:unset;--toast-close-button-transform:translate(-35%,-35%);position:fixed;width:var(--width);font-family:ui-sans-serif,system-ui,-apple-system,BlinkMacSystemFont,Segoe UI,Roboto,Helvetica Neue,Arial,Noto Sans,sans-serif,Apple Color Emoji,Segoe UI Emoji,Segoe UI Symbol,Noto Color Emoji;--gray2:hsl(0,0%,97.3%);--gray4:hsl(0,0%,93%);--gray5:hsl(0,0%,90.9%);--gray12:hsl(0,0%,9%);--border-radius:8px;box-sizing:border-box;padding:0;margin:0;list-style:none;outline:0;z-index:999999999;transition:transform .4s ease;top:var(--offset-top);right:var(--offset-right);--normal-bg:#fff;--normal-border:var(--gray4);--normal-text:var(--gray12);--success-bg:hsl(143,85%,96%);--success-border:hsl(145,92%,87%);--success-text:hsl(140,100%,27%);--error-bg:hsl(359,100%,97%);--error-border:hsl(359,100%,94%);--error-text:hsl(360,100%,45%)}
[data-sonner-toast]{--y:translateY(-100%);--lift:1;--lift-amount:calc(1 * var(--gap));z-index:var(--z-index);position:absolute;top:0;right:0;opacity:0;transform:var(--y);touch-action:none;transition:transform .4s,opacity .4s,height .4s,box-shadow .2s;box-sizing:border-box;outline:0;overflow-wrap:anywhere;padding:16px;background:var(--normal-bg);border:1px solid var(--normal-border);color:var(--normal-text);border-radius:var(--border-radius);box-shadow:0 4px 12px rgba(0,0,0,.1);width:var(--width);font-size:13px;display:flex;align-items:center;gap:6px}
[data-sonner-toast]:focus-visible{box-shadow:0 4px 12px rgba(0,0,0,.1),0 0 0 2px rgba(0,0,0,.2)}
[data-sonner-toast] [data-description]{font-weight:400;line-height:1.4;color:inherit}
[data-sonner-toast] [data-title]{font-weight:500;line-height:1.5;color:inherit}
[data-sonner-toast] [data-icon]{display:flex;height:16px;width:16px;position:relative;justify-content:flex-start;align-items:center;flex-shrink:0;margin-left:var(--toast-icon-margin-start);margin-right:var(--toast-icon-margin-end)}
[data-sonner-toast] [data-icon]>*{flex-shrink:0}
[data-sonner-toast] [data-icon] svg{margin-left:var(--toast-svg-margin-start);margin-right:var(--toast-svg-margin-end)}
[data-sonner-toast] [data-content]{display:flex;flex-direction:column;gap:2px;flex:1;min-width:0}
[data-sonner-toast] [data-close-button]{position:absolute;left:var(--toast-close-button-start);right:var(--toast-close-button-end);top:0;height:20px;width:20px;display:flex;justify-content:center;align-items:center;padding:0;color:var(--normal-text);background:var(--normal-bg);border:1px solid var(--normal-border);transform:var(--toast-close-button-transform);border-radius:50%;cursor:pointer;z-index:1;transition:opacity .1s,background .2s,border-color .2s}
[data-sonner-toast] [data-close-button]:focus-visible{box-shadow:0 4px 12px rgba(0,0,0,.1),0 0 0 2px rgba(0,0,0,.2)}
[data-sonner-toast]:hover [data-close-button]:hover{background:var(--gray2);border-color:var(--gray5)}
[data-sonner-toast][data-expanded=true]::after{content:'';position:absolute;left:0;height:calc(var(--gap) + 1px);bottom:100%;width:100%}
[data-sonner-toast][data-mounted=true]{--y:translateY(0);opacity:1}
[data-sonner-toast][data-expanded=false][data-front=false]{--scale:var(--toasts-before) * 0.05 + 1;--y:translateY(calc(var(--lift-amount) * var(--toasts-before))) scale(calc(-1 * var(--scale)));height:var(--front-toast-height)}
[data-sonner-toast]>*{transition:opacity .4s}
[data-sonner-toast][data-expanded=false][data-front=false]>*{opacity:0}
[data-sonner-toast][data-visible=false]{opacity:0;pointer-events:none}
[data-sonner-toast][data-mounted=true][data-expanded=true]{--y:translateY(calc(var(--lift) * var(--offset)));height:var(--initial-height)}
[data-sonner-toast][data-removed=true][data-front=true]{--y:translateY(calc(var(--lift) * -100%));opacity:0}
[data-sonner-toast][data-removed=true][data-front=false][data-expanded=true]{--y:translateY(calc(var(--lift) * var(--offset) + var(--lift) * -100%));opacity:0}
[data-sonner-toast][data-removed=true][data-front=false][data-expanded=false]{--y:translateY(40%);opacity:0;transition:transform .5s,opacity .2s}
[data-rich-colors=true][data-type=success],[data-rich-colors=true][data-type=success] [data-close-button]{background:var(--success-bg);border-color:var(--success-border);color:var(--success-text)}
[data-rich-colors=true][data-type=error],[data-rich-colors=true][data-type=error] [data-close-button]{background:var(--error-bg);border-color:var(--error-border);color:var(--error-text)}
@media (max-width:600px){[data-sonner-toaster]{right:var(--mobile-offset-right);left:var(--mobile-offset-left);top:var(--mobile-offset-top);width:100%}[data-sonner-toaster] [data-sonner-toast]{left:0;right:0;width:calc(100% - var(--mobile-offset-left) * 2)}}
@media (prefers-reduced-motion){[data-sonner-toast],[data-sonner-toast]>*{transition:none!important;animation:none!important}}`;

const SVG = 'xmlns="http://www.w3.org/2000/svg" aria-hidden="true"';
const ICONS: Partial<Record<ToastType, string>> = {
  success: `<svg ${SVG} viewBox="0 0 20 20" fill="currentColor" height="20" width="20"><path fill-rule="evenodd" d="M10 18a8 8 0 100-16 8 8 0 000 16zm3.857-9.809a.75.75 0 00-1.214-.882l-3.483 4.79-1.88-1.88a.75.75 0 10-1.06 1.061l2.5 2.5a.75.75 0 001.137-.089l4-5.5z" clip-rule="evenodd"/></svg>`,
  error: `<svg ${SVG} viewBox="0 0 20 20" fill="currentColor" height="20" width="20"><path fill-rule="evenodd" d="M18 10a8 8 0 11-16 0 8 8 0 0116 0zm-8-5a.75.75 0 01.75.75v4.5a.75.75 0 01-1.5 0v-4.5A.75.75 0 0110 5zm0 10a1 1 0 100-2 1 1 0 000 2z" clip-rule="evenodd"/></svg>`,
};
const CLOSE_ICON = `<svg ${SVG} width="12" height="12" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round"><line x1="18" y1="6" x2="6" y2="18"/><line x1="6" y1="6" x2="18" y2="18"/></svg>`;

interface LiveToast {
  element: HTMLLIElement;
  height: number;
  remaining: number;
  startedAt: number;
  timer: number | undefined;
}

let region: HTMLElement | undefined;
let list: HTMLOListElement | undefined;
let expanded = false;
/** Newest first, as sonner stacks them. */
const toasts: LiveToast[] = [];

const element = <K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}) => {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
};

/** The live region, created once when the page is enhanced so that later additions are announced. */
export function mountToaster(): void {
  if (region) return;
  region = element("section", {
    "aria-label": "Notifications alt+T",
    tabindex: "-1",
    "aria-live": "polite",
    "aria-relevant": "additions text",
    "aria-atomic": "false",
  });
  document.body.append(region);
  document.addEventListener("keydown", (event) => {
    if (event.altKey && event.code === "KeyT" && list) {
      setExpanded(true);
      list.focus();
    }
  });
}

function ensureList(): HTMLOListElement {
  if (list) return list;
  if (!document.getElementById("sonner-static-css")) {
    const style = element("style", { id: "sonner-static-css" });
    style.textContent = CSS;
    document.head.append(style);
  }
  list = element("ol", {
    dir: "ltr",
    tabindex: "-1",
    "data-sonner-toaster": "true",
    "data-sonner-theme": "light",
    "data-y-position": "top",
    "data-x-position": "right",
    style:
      "--width:356px;--gap:14px;--offset-top:24px;--offset-right:24px;--offset-bottom:24px;--offset-left:24px;--mobile-offset-top:16px;--mobile-offset-right:16px;--mobile-offset-bottom:16px;--mobile-offset-left:16px",
  });
  const expand = () => setExpanded(true);
  const collapse = () => setExpanded(list?.contains(document.activeElement) ?? false);
  list.addEventListener("mouseenter", expand);
  list.addEventListener("mousemove", expand);
  list.addEventListener("mouseleave", collapse);
  list.addEventListener("focusin", expand);
  list.addEventListener("focusout", (event) => {
    if (!list?.contains(event.relatedTarget as Node | null)) setExpanded(false);
  });
  if (!region) mountToaster();
  region!.append(list);
  return list;
}

function setExpanded(value: boolean): void {
  if (expanded === value) return;
  expanded = value;
  for (const toast of toasts) {
    if (value) pause(toast);
    else resume(toast);
  }
  layout();
}

/** Stack positions: the newest in front, the next ones lifted behind it, or spread out when expanded. */
function layout(): void {
  if (!list) return;
  list.style.setProperty("--front-toast-height", `${toasts[0]?.height ?? 0}px`);
  let offset = 0;
  toasts.forEach((toast, index) => {
    const { element: node } = toast;
    node.dataset.index = String(index);
    node.dataset.front = String(index === 0);
    node.dataset.expanded = String(expanded);
    node.dataset.visible = String(index < VISIBLE_TOASTS);
    node.style.setProperty("--index", String(index));
    node.style.setProperty("--toasts-before", String(index));
    node.style.setProperty("--z-index", String(toasts.length - index));
    node.style.setProperty("--offset", `${offset}px`);
    node.style.setProperty("--initial-height", `${toast.height}px`);
    offset += toast.height + GAP_PX;
  });
}

function pause(toast: LiveToast): void {
  if (toast.timer === undefined) return;
  window.clearTimeout(toast.timer);
  toast.timer = undefined;
  toast.remaining -= Date.now() - toast.startedAt;
}

function resume(toast: LiveToast): void {
  if (toast.timer !== undefined) return;
  toast.startedAt = Date.now();
  toast.timer = window.setTimeout(() => dismiss(toast), Math.max(0, toast.remaining));
}

function dismiss(toast: LiveToast): void {
  const index = toasts.indexOf(toast);
  if (index === -1) return;
  pause(toast);
  toast.element.dataset.removed = "true";
  window.setTimeout(() => {
    toasts.splice(toasts.indexOf(toast), 1);
    toast.element.remove();
    if (toasts.length === 0) {
      list?.remove();
      list = undefined;
      expanded = false;
    }
    layout();
  }, REMOVE_AFTER_MS);
}

function show(type: ToastType, title: string, description?: string): void {
  const container = ensureList();
  const node = element("li", {
    tabindex: "0",
    "data-sonner-toast": "",
    "data-rich-colors": "true",
    "data-styled": "true",
    "data-mounted": "false",
    "data-removed": "false",
    "data-y-position": "top",
    "data-x-position": "right",
    "data-type": type,
  });
  const close = element("button", { "aria-label": "Close toast", "data-close-button": "true" });
  close.innerHTML = CLOSE_ICON;
  const content = element("div", { "data-content": "" });
  const titleNode = element("div", { "data-title": "" });
  titleNode.textContent = title;
  content.append(titleNode);
  if (description) {
    const descriptionNode = element("div", { "data-description": "" });
    descriptionNode.textContent = description;
    content.append(descriptionNode);
  }
  node.append(close);
  if (ICONS[type]) {
    const icon = element("div", { "data-icon": "" });
    icon.innerHTML = ICONS[type];
    node.append(icon);
  }
  node.append(content);
  container.prepend(node);

  const toast: LiveToast = {
    element: node,
    height: node.getBoundingClientRect().height,
    remaining: LIFETIME_MS,
    startedAt: Date.now(),
    timer: undefined,
  };
  close.addEventListener("click", () => dismiss(toast));
  toasts.unshift(toast);
  layout();
  if (!expanded) resume(toast);
  // The next frame, so the entry transition runs from the hidden state.
  requestAnimationFrame(() => requestAnimationFrame(() => (node.dataset.mounted = "true")));
}

export const toast = {
  show,
  success: (title: string, options: { description?: string } = {}) =>
    show("success", title, options.description),
  error: (title: string, options: { description?: string } = {}) => show("error", title, options.description),
};
