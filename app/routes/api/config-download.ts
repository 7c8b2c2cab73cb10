import { errorResponse, handleApi, methodNotAllowed, ApiError, notFound } from "#server/http/api.ts";
import { configFileName, renderClientConfig } from "#server/domain/vpn/config-file.ts";
import { findDeviceByToken, markActivated } from "#server/domain/vpn/devices.ts";
import { isActivatingFetch } from "#app/lib/config-activation.ts";
import type { Route } from "./+types/config-download";

export function loader({ request, context, params }: Route.LoaderArgs) {
  return handleApi({ request, context, params }, async () => {
    const { services } = context;
    const access = await findDeviceByToken(services.db, params.token);
    if (access.state === "unknown") throw notFound("There is no config at this address.");
    if (access.state === "gone") throw new ApiError(410, "Gone", access.reason);
    // Rendered first: a config refused for a bad setting (ConfigRefused) activates nothing.
    const text = renderClientConfig(access.device, access.server, services.sealer);
    if (isActivatingFetch(request.headers)) await markActivated(services.db, access.device.id, "download");
    const fileName = configFileName(services.config.BRAND_NAME, access.device.slot);
    return new Response(text, {
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Content-Disposition": `attachment; filename="${fileName}"`,
        "Cache-Control": "no-store",
        "X-Robots-Tag": "noindex",
      },
    });
  });
}

export const action = () => errorResponse(methodNotAllowed(["GET"]));
