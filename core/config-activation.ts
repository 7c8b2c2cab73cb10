// A config counts as activated once the buyer downloads it or is shown its QR. Only the
// success page's own fetches count; they send this header. A link scanner's plain GET of the
// e-mailed download link still gets the file but activates nothing (decision 064). A cross-site
// page cannot add the header without a CORS preflight, which the config routes never approve.
export const CONFIG_ACTIVATION_HEADER = "X-Config-Activation";

/** The headers the success page sends with its download and QR fetches. */
export const activatingFetchHeaders: Record<string, string> = { [CONFIG_ACTIVATION_HEADER]: "1" };

export function isActivatingFetch(headers: Headers): boolean {
  return headers.get(CONFIG_ACTIVATION_HEADER) === "1";
}
