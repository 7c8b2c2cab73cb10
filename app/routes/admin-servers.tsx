import { useRevalidator } from "react-router";
import { AddServerAction } from "#app/components/admin/add-server-action.tsx";
import { SalesStoppedExplanation } from "#app/components/admin/sales-stopped.tsx";
import { ServerCard } from "#app/components/admin/server-card.tsx";
import { adminPageMeta } from "#app/lib/meta.ts";
import { ACTIVE_HANDSHAKE_WINDOW_MS } from "#server/domain/vpn/nodes.ts";
import { listServerHealth } from "#server/domain/vpn/server-health.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import { requireStaffPage } from "#server/http/staff-pages.ts";
import { staffFormAction } from "#server/http/staff-form.ts";
import {
  changeClientSettingAsStaff,
  clientSettingFormSchema,
} from "#server/domain/vpn/client-settings-staff.ts";
import type { Route } from "./+types/admin-servers";

export const meta: Route.MetaFunction = ({ matches }) => adminPageMeta("Servers", "/admin/servers", matches);

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireStaffPage(request, context.services, "admin");
  return {
    servers: await listServerHealth(context.services.db),
    salesStopped: !(await anyServerCanTakeDevice(context.services.db)),
    handshakeWindowMinutes: ACTIVE_HANDSHAKE_WINDOW_MS / 60_000,
  };
}

/** The servers' client settings (set-mtu, set-ports, set-dns), posted by the cards' fetcher forms. */
export const action = ({ request, context, params }: Route.ActionArgs) =>
  staffFormAction({ request, context, params }, "admin", clientSettingFormSchema, (input, staff) =>
    changeClientSettingAsStaff(context.services.db, staff, input),
  );

export default function AdminServers({ loaderData }: Route.ComponentProps) {
  const revalidator = useRevalidator();
  const reload = () => void revalidator.revalidate();
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
        <AddServerAction onDone={reload} />
      </div>
      {loaderData.salesStopped ? <SalesStoppedExplanation servers={loaderData.servers} /> : null}
      {loaderData.servers.length === 0 ? (
        <p className="mt-6 text-muted-foreground">No VPN servers yet.</p>
      ) : (
        <ul className="mt-6 grid gap-4 lg:grid-cols-2">
          {loaderData.servers.map((server) => (
            <li key={server.id}>
              <ServerCard
                server={server}
                handshakeWindowMinutes={loaderData.handshakeWindowMinutes}
                onDone={reload}
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
