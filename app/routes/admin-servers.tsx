import { AddServerAction } from "#app/components/admin/add-server-action.tsx";
import { ActionNotice } from "#app/components/admin/action-notice.tsx";
import { NodeTokenNotice } from "#app/components/admin/node-token-notice.tsx";
import { SalesStoppedExplanation } from "#app/components/admin/sales-stopped.tsx";
import { ServerCard } from "#app/components/admin/server-card.tsx";
import { StreamingServices } from "#app/components/admin/streaming-checks.tsx";
import { adminPageMeta } from "#app/lib/meta.ts";
import { ACTIVE_HANDSHAKE_WINDOW_MS } from "#server/domain/vpn/nodes.ts";
import { listServerHealth } from "#server/domain/ops/server-health.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import { listStreamingServices } from "#server/domain/vpn/streaming-checks.ts";
import { requireStaffPage } from "#server/http/staff-pages.ts";
import { staffIntentAction } from "#server/http/staff-form.ts";
import { serverIntents } from "./admin-servers-actions.server.ts";
import type { Route } from "./+types/admin-servers";

export const meta: Route.MetaFunction = ({ matches }) => adminPageMeta("Servers", "/admin/servers", matches);

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireStaffPage(request, context.services, "admin");
  return {
    servers: await listServerHealth(context.services.db),
    salesStopped: !(await anyServerCanTakeDevice(context.services.db)),
    handshakeWindowMinutes: ACTIVE_HANDSHAKE_WINDOW_MS / 60_000,
    streamingServices: await listStreamingServices(context.services.db),
  };
}

/** Every server action of the page (add, endpoint, token, status, moves, client settings). */
export const action = ({ request, context, params }: Route.ActionArgs) =>
  staffIntentAction({ request, context, params }, "admin", serverIntents(context.services));

type NewToken = { server: { name: string; endpoint: string }; nodeToken: string };

export default function AdminServers({ loaderData, actionData }: Route.ComponentProps) {
  // Without JavaScript a new node token comes back with the page itself.
  const result = actionData?.ok ? (actionData.result as unknown as Partial<NewToken> | null) : null;
  const added = result?.nodeToken ? (result as NewToken) : null;
  return (
    <section className="px-4 py-8 md:px-8">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold">Servers</h1>
          <p className="mt-1 text-sm text-muted-foreground">
            Draining: no new devices, its devices keep working. Disabled: no new devices, and its node drops
            their peers. Every action asks for a reason and is kept in the audit log.
          </p>
        </div>
        <AddServerAction />
      </div>
      <ActionNotice answer={actionData} />
      {added ? (
        <NodeTokenNotice
          serverName={added.server.name}
          endpoint={added.server.endpoint}
          token={added.nodeToken}
        />
      ) : null}
      {loaderData.salesStopped ? <SalesStoppedExplanation servers={loaderData.servers} /> : null}
      <StreamingServices services={loaderData.streamingServices} />
      {loaderData.servers.length === 0 ? (
        <p className="mt-6 text-muted-foreground">No VPN servers yet.</p>
      ) : (
        <ul className="mt-6 grid gap-4 lg:grid-cols-2">
          {loaderData.servers.map((server) => (
            <li key={server.id}>
              <ServerCard server={server} handshakeWindowMinutes={loaderData.handshakeWindowMinutes} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
