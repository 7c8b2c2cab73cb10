import { isActivatingFetch } from "#core/config-activation.ts";
import { configLinkQuerySchema, handOutConfig } from "#server/domain/vpn/config-downloads.ts";
import { parseInput, type ApiCall } from "./api.ts";

/**
 * The config behind a capability link (`/api/configs/{token}` and its `/qr.svg`): `?port=` picks
 * the alternate-port variant; the success page's own fetch activates the device.
 */
export function configFromLink({ request, context, params }: ApiCall, activation: "download" | "qr") {
  const { services } = context;
  const query = parseInput(configLinkQuerySchema, Object.fromEntries(new URL(request.url).searchParams));
  return handOutConfig(
    { db: services.db, sealer: services.sealer, brandName: services.config.BRAND_NAME },
    params.token ?? "",
    query.port,
    isActivatingFetch(request.headers) ? activation : null,
  );
}
