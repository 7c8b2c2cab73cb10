import type { ReactNode } from "react";
import { ConfirmAction } from "#app/components/admin/confirm-action.tsx";
import { Input } from "#app/components/ui/input.tsx";
// Type-only: erased from the browser bundle.
import type { ServerHealth } from "#server/domain/ops/server-health.ts";

const number = new Intl.NumberFormat("en-US");

type Intent = "set-mtu" | "set-ports" | "set-dns";

/** What a server's configs say besides keys (decision 090), as rows of the server card's list. */
export function ClientSettingsFacts({ server }: { server: ServerHealth }) {
  return (
    <>
      <dt className="text-muted-foreground">Client MTU</dt>
      <dd data-testid="client-mtu">{server.mtuText}</dd>
      <dt className="text-muted-foreground">Node settings</dt>
      <dd data-testid="node-settings">{server.nodeSettingsText}</dd>
      <dt className="text-muted-foreground">Alternate ports</dt>
      <dd data-testid="alternate-ports">
        {server.alternatePorts.length ? `UDP ${server.alternatePorts.join(", ")}` : "None"}
      </dd>
      <dt className="text-muted-foreground">Configs out of date</dt>
      <dd>{number.format(server.outdatedConfigs)}</dd>
    </>
  );
}

const AFTER_CHANGE =
  "Its running agent applies it within seconds; this page shows when it has (Node settings). Configs carry the change once the node has applied it; owners of configs handed out before are then told to download theirs again.";

/** The set-mtu, set-ports and set-dns actions of one server, through the page's route action. */
export function ClientSettingsActions({ server }: { server: ServerHealth }) {
  return (
    <>
      <ClientSettingAction
        server={server}
        intent="set-mtu"
        label="Set MTU"
        title={`Set the client MTU of ${server.name}`}
        description={`The MTU = line of its configs and its node's interface MTU (1280 fits every path). ${AFTER_CHANGE}`}
        fields={
          <label className="grid gap-1 text-sm font-medium">
            MTU (1280-1420)
            <Input name="mtu" type="number" min={1280} max={1420} defaultValue={server.clientMtu} required />
          </label>
        }
      />
      <ClientSettingAction
        server={server}
        intent="set-ports"
        label="Set ports"
        title={`Set the alternate ports of ${server.name}`}
        description="Extra UDP ports its node accepts WireGuard on, for networks that block the endpoint's port; buyers are offered the first one (up to 4, none the endpoint's) once the node has applied them, which this page shows (Node settings). Owners are told only when a port is taken away."
        fields={
          <label className="grid gap-1 text-sm font-medium">
            Ports, separated by commas (empty for none)
            <Input name="ports" defaultValue={server.alternatePorts.join(", ")} />
          </label>
        }
      />
      <ClientSettingAction
        server={server}
        intent="set-dns"
        label="Set DNS"
        title={`Set the client DNS of ${server.name}`}
        description={`"node": configs name the node's own resolver (its setup installs it). Otherwise 1-4 resolver addresses, separated by commas. ${AFTER_CHANGE} Other resolvers in place of other resolvers reach configs at once: the node has nothing to do.`}
        fields={
          <label className="grid gap-1 text-sm font-medium">
            node, or resolver addresses
            <Input name="dns" defaultValue={server.nodeResolver ? "node" : server.dns} required />
          </label>
        }
      />
    </>
  );
}

function ClientSettingAction(props: {
  server: ServerHealth;
  intent: Intent;
  label: string;
  title: string;
  description: string;
  fields: ReactNode;
}) {
  return <ConfirmAction {...props} target={{ serverId: props.server.id }} />;
}
