import { sql } from "drizzle-orm";
import type { Route } from "./+types/readyz";

export async function loader({ context }: Route.LoaderArgs) {
  try {
    await context.services.db.execute(sql`select 1`);
    return Response.json(
      { status: "ready", database: context.services.dbKind },
      { headers: { "Cache-Control": "no-store" } },
    );
  } catch (error) {
    context.services.logger.error({ err: error }, "readiness check: database unreachable");
    return Response.json(
      { status: "unavailable", error: "Service unavailable", message: "The database is not reachable." },
      { status: 503, headers: { "Cache-Control": "no-store" } },
    );
  }
}
