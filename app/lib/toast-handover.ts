// Toasts that a hydrated page shows just before it sends the visitor to a static page (e.g.
// "Access Denied", then the home page): the document load would drop them with the page, so
// the static page's enhancement script shows them again on arrival (decision 012).

export const PENDING_TOASTS_KEY = "pendingToasts";

export interface HandedOverToast {
  type: "success" | "error" | "default";
  title: string;
  description?: string;
}

export function handOverToasts(toasts: HandedOverToast[]): void {
  if (toasts.length === 0) return;
  try {
    window.sessionStorage.setItem(PENDING_TOASTS_KEY, JSON.stringify(toasts));
  } catch {
    // Storage blocked: the toasts are lost with the page, as without the handover.
  }
}

/** The handed-over toasts, oldest first; reading them removes them. */
export function takeHandedOverToasts(): HandedOverToast[] {
  try {
    const raw = window.sessionStorage.getItem(PENDING_TOASTS_KEY);
    window.sessionStorage.removeItem(PENDING_TOASTS_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (toast): toast is HandedOverToast =>
        typeof toast?.title === "string" &&
        ["success", "error", "default"].includes(toast.type) &&
        (toast.description === undefined || typeof toast.description === "string"),
    );
  } catch {
    return [];
  }
}
