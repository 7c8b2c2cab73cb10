import QRCode from "qrcode";
import { ApiError, errorResponse, handleApi, methodNotAllowed, notFound } from "#server/http/api.ts";
import { renderClientConfig } from "#server/domain/vpn/config-file.ts";
import { findDeviceByToken, markActivated } from "#server/domain/vpn/devices.ts";
import { isActivatingFetch } from "#app/lib/config-activation.ts";
import type { Route } from "./+types/config-qr";

export function loader({ request, context, params }: Route.LoaderArgs) {
  return handleApi({ request, context, params }, async () => {
    const { services } = context;
    const access = await findDeviceByToken(services.db, params.token);
    if (access.state === "unknown") throw notFound("There is no config at this address.");
    if (access.state === "gone") throw new ApiError(410, "Gone", access.reason);
    const svg = await QRCode.toString(renderClientConfig(access.device, access.server, services.sealer), {
      type: "svg",
      errorCorrectionLevel: "M",
      margin: 2,
    });
    if (isActivatingFetch(request.headers)) await markActivated(services.db, access.device.id, "qr");
    return new Response(svg, {
      headers: { "Content-Type": "image/svg+xml", "Cache-Control": "no-store", "X-Robots-Tag": "noindex" },
    });
  });
}

export const action = () => errorResponse(methodNotAllowed(["GET"]));
