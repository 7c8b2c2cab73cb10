import { errorResponse, handleApi, methodNotAllowed } from "#server/http/api.ts";
import { configFromLink } from "#server/http/config-link.ts";
import type { Route } from "./+types/config-qr";

/** The QR code of a device's config (the same text as the .conf, `?port=` the same way). */
export function loader(call: Route.LoaderArgs) {
  return handleApi(call, async () => {
    const config = await configFromLink(call, "qr");
    const { default: QRCode } = await import("qrcode"); // on first use, not at start
    const svg = await QRCode.toString(config.text, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
    return new Response(svg, {
      headers: { "Content-Type": "image/svg+xml", "Cache-Control": "no-store", "X-Robots-Tag": "noindex" },
    });
  });
}

export const action = () => errorResponse(methodNotAllowed(["GET"]));
