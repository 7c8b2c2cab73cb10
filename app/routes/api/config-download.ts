import { errorResponse, handleApi, methodNotAllowed } from "#server/http/api.ts";
import { configFromLink, configLinkAnswer } from "#server/http/config-link.ts";
import type { Route } from "./+types/config-download";

/** A device's .conf; `?port=443` is the same device on one of its server's alternate ports. */
export async function loader(call: Route.LoaderArgs) {
  const answer = await handleApi(call, async () => {
    const config = await configFromLink(call, "download");
    return new Response(config.text, {
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Content-Disposition": `attachment; filename="${config.fileName}"`,
        "Cache-Control": "no-store",
        "X-Robots-Tag": "noindex",
      },
    });
  });
  return configLinkAnswer(call.request, answer);
}

export const action = () => errorResponse(methodNotAllowed(["GET"]));
