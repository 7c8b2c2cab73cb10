// The enhancement script of the static marketing pages: the only script those
// pages load. The server renders every page completely; this adds what React's event handlers
// did there, reading what it needs from the markup (data-* attributes), and nothing else.
import { findPlan } from "#core/plans.ts";
import { storeSelectedPlan } from "#app/lib/purchase-storage.ts";
import { enhanceContactForm } from "./contact-form.ts";
import { DNS_CHECK } from "#app/lib/dns-check.ts";
import { runDnsCheck } from "./dns-check.ts";
import { noticeAfter, type Notice } from "./notice.ts";

/** How long the /pricing welcome notice is read before the setup guide opens (docs/product.md §2.4). */
const NOTICE_READ_MS = 1200;

const MENU_ID = "mobile-menu";

/** The message regions of the plan buttons that show a notice before moving on. */
const planNotices = new Map<Element, Notice>();

function menuToggle(): HTMLButtonElement | null {
  return document.querySelector<HTMLButtonElement>(`button[aria-controls="${MENU_ID}"]`);
}

/** Opens or closes the phone menu: a copy of the header's template, present only while open. */
function setMenuOpen(open: boolean): void {
  const toggle = menuToggle();
  const template = document.getElementById(`${MENU_ID}-template`) as HTMLTemplateElement | null;
  if (!toggle || !template) return;
  const menu = document.getElementById(MENU_ID);
  if (open && !menu) toggle.closest("header")?.append(template.content.cloneNode(true));
  if (!open) menu?.remove();
  toggle.setAttribute("aria-expanded", String(open));
  toggle.setAttribute("aria-label", open ? "Close menu" : "Open menu");
}

/** A link to an anchor of this page scrolls there smoothly and keeps one history entry. */
function followAnchor(event: MouseEvent, link: HTMLAnchorElement): void {
  const url = new URL(link.href);
  if (url.origin !== location.origin || url.pathname !== location.pathname || !url.hash) return;
  const target = document.getElementById(decodeURIComponent(url.hash.slice(1)));
  if (!target) return;
  event.preventDefault();
  target.scrollIntoView({ behavior: "smooth", block: "start" });
  history.replaceState(history.state, "", url.pathname + url.hash);
}

function choosePlan(button: HTMLElement): void {
  const plan = findPlan(button.dataset.selectPlan ?? "");
  const next = button.dataset.next;
  if (!plan || !next) return;
  storeSelectedPlan(plan);
  const notice = planNotices.get(button);
  const title = button.dataset.noticeTitle;
  if (!notice || !title) {
    location.assign(next);
    return;
  }
  notice.show({ type: "success", title, description: button.dataset.noticeDescription });
  window.setTimeout(() => location.assign(next), NOTICE_READ_MS);
}

/** The tutorial's click-to-load player: the YouTube iframe exists only after the click. */
function playVideo(button: HTMLElement): void {
  const iframe = document.createElement("iframe");
  iframe.className = "absolute inset-0 size-full";
  iframe.src = `https://www.youtube-nocookie.com/embed/${encodeURIComponent(button.dataset.videoId ?? "")}?autoplay=1&rel=0`;
  iframe.title = button.dataset.videoTitle ?? "";
  iframe.allow = "accelerometer; autoplay; clipboard-write; encrypted-media; gyroscope; picture-in-picture";
  iframe.allowFullscreen = true;
  button.replaceWith(iframe);
}

function scrollToSection(id: string): void {
  const target = document.getElementById(id);
  target?.scrollIntoView({ behavior: "smooth", block: "start" });
  target?.querySelector("input")?.focus({ preventScroll: true });
}

function onClick(event: MouseEvent): void {
  const target = event.target instanceof Element ? event.target : null;
  if (!target || event.defaultPrevented || event.button !== 0) return;

  const toggle = target.closest(`button[aria-controls="${MENU_ID}"]`);
  if (toggle) {
    setMenuOpen(toggle.getAttribute("aria-expanded") !== "true");
    return;
  }
  const link = target.closest("a");
  if (link) {
    if (link.closest(`#${MENU_ID}`)) setMenuOpen(false);
    if (!event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey) followAnchor(event, link);
    return;
  }
  const action = target.closest<HTMLElement>("[data-select-plan], [data-video-id], [data-scroll-to]");
  if (!action) return;
  if (action.dataset.selectPlan) {
    // A plan button is also a form's submit button (for a browser without JavaScript).
    event.preventDefault();
    choosePlan(action);
  } else if (action.dataset.videoId !== undefined) playVideo(action);
  else if (action.dataset.scrollTo) scrollToSection(action.dataset.scrollTo);
}

function onKeyDown(event: KeyboardEvent): void {
  if (event.key !== "Escape" || !document.getElementById(MENU_ID)) return;
  setMenuOpen(false);
  menuToggle()?.focus();
}

function enhance(): void {
  document.addEventListener("click", onClick);
  document.addEventListener("keydown", onKeyDown);
  for (const form of document.querySelectorAll<HTMLFormElement>("form[data-contact-form]")) {
    enhanceContactForm(form);
  }
  for (const check of document.querySelectorAll<HTMLElement>(`[${DNS_CHECK.root}]`)) void runDnsCheck(check);
  for (const button of document.querySelectorAll("[data-select-plan][data-notice-title]")) {
    planNotices.set(button, noticeAfter(button));
  }
  // Browser tests wait for this before interacting, as they do for React's hydration.
  document.documentElement.dataset.hydrated = "true";
}

enhance();
