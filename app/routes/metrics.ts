import { handleApi, methodNotAllowed } from "#server/http/api.ts";
import { notFound } from "#server/domain/errors.ts";
import { requireMetricsToken } from "#server/http/metrics.ts";
import type { Route } from "./+types/metrics";

/** Prometheus text for the holder of METRICS_TOKEN. */
export const loader = ({ request, context, params }: Route.LoaderArgs) =>
  handleApi({ request, context, params }, async () => {
    // Strict routing: exactly /metrics, so a proxy rule for that path covers every way in
    // (React Router alone would also answer /metrics/, /METRICS and /metrics.data).
    if (new URL(request.url).pathname !== "/metrics") throw notFound("There is nothing at this address.");
    const { services } = context;
    requireMetricsToken(services.config, request.headers.get("authorization"));
    return new Response(await services.metrics.render(services.db), {
      headers: { "Content-Type": services.metrics.registry.contentType, "Cache-Control": "no-store" },
    });
  });

export const action = ({ request, context, params }: Route.ActionArgs) =>
  handleApi({ request, context, params }, async () => {
    throw methodNotAllowed(["GET"]);
  });
