import { errorResponse, handleApi, methodNotAllowed } from "#server/http/api.ts";
import { configFromLink, configLinkAnswer } from "#server/http/config-link.ts";
import { qrCodeSvg } from "#server/qr-code.ts";
import type { Route } from "./+types/config-qr";

/** The QR code of a device's config (the same text as the .conf, `?port=` the same way). */
export async function loader(call: Route.LoaderArgs) {
  const answer = await handleApi(call, async () => {
    const config = await configFromLink(call, "qr");
    const svg = await qrCodeSvg(config.text);
    return new Response(svg, {
      headers: { "Content-Type": "image/svg+xml", "Cache-Control": "no-store", "X-Robots-Tag": "noindex" },
    });
  });
  return configLinkAnswer(call.request, answer);
}

export const action = () => errorResponse(methodNotAllowed(["GET"]));
