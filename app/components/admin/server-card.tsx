import { useCallback, useState } from "react";
import { ClientSettingsActions, ClientSettingsFacts } from "#app/components/admin/client-settings.tsx";
import { ConfirmAction } from "#app/components/admin/confirm-action.tsx";
import { ExitCountryFacts } from "#app/components/admin/exit-country.tsx";
import { StreamingFacts } from "#app/components/admin/streaming-checks.tsx";
import { NodeTokenNotice } from "#app/components/admin/node-token-notice.tsx";
import { Badge } from "#app/components/ui/badge.tsx";
import { Input } from "#app/components/ui/input.tsx";
import { formatDateTimeUtc } from "#core/format.ts";
import { regionLabel } from "#core/locations.ts";
// Type-only: erased from the browser bundle.
import type { ServerHealth } from "#server/domain/ops/server-health.ts";

const STATE_BADGE = {
  online: "success",
  "awaiting-node": "warning",
  silent: "danger",
  draining: "warning",
  disabled: "danger",
  full: "danger",
  placeholder: "warning",
  retired: "outline",
} as const satisfies Record<ServerHealth["state"], string>;

const STATE_LABEL: Record<ServerHealth["state"], string> = {
  online: "online",
  "awaiting-node": "awaiting its node",
  silent: "silent",
  draining: "draining",
  disabled: "disabled",
  full: "full",
  placeholder: "development placeholder",
  retired: "retired",
};

const number = new Intl.NumberFormat("en-US");

/** One VPN server on /admin/servers: its health and the actions its status allows. */
export function ServerCard({
  server,
  handshakeWindowMinutes,
}: {
  server: ServerHealth;
  /** Peers count as connected with a handshake this recent (ACTIVE_HANDSHAKE_WINDOW_MS). */
  handshakeWindowMinutes: number;
}) {
  const [token, setToken] = useState<string | null>(null);
  const showToken = useCallback((result: { nodeToken: string }) => setToken(result.nodeToken), []);
  const target = { serverId: server.id };
  const inSync = server.appliedVersion === server.desiredVersion;
  return (
    <article aria-labelledby={`server-${server.id}`} className="rounded-xl border p-4 shadow-sm">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id={`server-${server.id}`} className="font-mono text-lg font-semibold">
          {server.name}
        </h2>
        <Badge variant={STATE_BADGE[server.state]} data-testid="server-state">
          {STATE_LABEL[server.state]}
        </Badge>
        {server.development ? <Badge variant="outline">development</Badge> : null}
        <Badge variant={server.takesDevices ? "success" : "danger"}>
          {server.takesDevices ? "takes new devices" : "takes no new devices"}
        </Badge>
      </div>
      <p className="mt-2 text-sm text-muted-foreground">{server.explanation}</p>
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-muted-foreground">Region</dt>
        <dd>{regionLabel(server.region)}</dd>
        <dt className="text-muted-foreground">Endpoint</dt>
        <dd className="break-all font-mono">{server.endpoint}</dd>
        <dt className="text-muted-foreground">DNS</dt>
        <dd className="break-all font-mono" data-testid="client-dns">
          {server.nodeResolver ? "the node's own resolver" : server.dns}
        </dd>
        <dt className="text-muted-foreground">Address pools</dt>
        <dd className="break-all font-mono">
          {server.ipv4Cidr}, {server.ipv6Cidr}
        </dd>
        <dt className="text-muted-foreground">Agent last seen</dt>
        <dd>
          {server.keyRegistered ? formatDateTimeUtc(server.lastSeenAt) : "Never: waiting for its agent"}
        </dd>
        <dt className="text-muted-foreground">Peers desired / applied</dt>
        <dd>
          {number.format(server.desiredPeers)} /{" "}
          {server.appliedPeers === null ? "—" : number.format(server.appliedPeers)}
        </dd>
        <dt className="text-muted-foreground">Version desired / applied</dt>
        <dd>
          {server.desiredVersion} / {server.appliedVersion ?? "—"}{" "}
          <span className={inSync ? "text-green-700" : "text-yellow-700"}>
            {inSync ? "(in sync)" : "(behind)"}
          </span>
        </dd>
        <dt className="text-muted-foreground">Connected (last {handshakeWindowMinutes} min)</dt>
        <dd>{number.format(server.connectedPeers)}</dd>
        <dt className="text-muted-foreground">UDP port reachable</dt>
        <dd>
          {server.lastHandshakeAt
            ? `yes: a device's handshake reached it at ${formatDateTimeUtc(server.lastHandshakeAt)}`
            : "not known yet: no device has completed a handshake with it"}
        </dd>
        <ExitCountryFacts server={server} />
        <StreamingFacts server={server} />
        <dt className="text-muted-foreground">Capacity used</dt>
        <dd>
          {number.format(server.liveDevices)} of {number.format(server.capacity)} devices
        </dd>
        <ClientSettingsFacts server={server} />
      </dl>
      <div className="mt-4 flex flex-wrap gap-2">
        <ClientSettingsActions server={server} />
        <ConfirmAction
          label="Set endpoint"
          title={`Set the endpoint of ${server.name}`}
          description="Configs downloaded from now on carry it; configs handed out before keep the old one."
          fields={
            <label className="grid gap-1 text-sm font-medium">
              New endpoint (host:port)
              <Input name="endpoint" defaultValue={server.endpoint} required />
            </label>
          }
          intent="set-endpoint"
          target={target}
        />
        <ConfirmAction
          label="Rotate token"
          title={`Rotate the node token of ${server.name}`}
          description="The current token stops working at once: the node's agent needs the new one, shown once after this."
          intent="rotate-token"
          target={target}
          onDone={showToken}
        />
        {server.status === "active" ? (
          <ConfirmAction
            label="Drain"
            title={`Drain ${server.name}`}
            description="It takes no new devices; the devices on it keep working."
            intent="drain"
            target={target}
          />
        ) : (
          <ConfirmAction
            label="Enable"
            title={`Enable ${server.name}`}
            description="It takes new devices again and its node carries its peers."
            intent="enable"
            target={target}
          />
        )}
        {server.status !== "disabled" ? (
          <ConfirmAction
            label="Disable"
            variant="destructive"
            title={`Disable ${server.name}`}
            description={`It takes no new devices and its node drops their peers: the ${number.format(server.liveDevices)} devices on it stop connecting until it is enabled again or they are moved.`}
            intent="disable"
            target={target}
          />
        ) : null}
        {server.status !== "active" && server.liveDevices > 0 ? (
          <ConfirmAction
            label="Move all devices"
            title={`Move every device off ${server.name}`}
            description={`Each of its ${number.format(server.liveDevices)} devices moves to the least-loaded other server with room (in the same region when one has room); each owner gets an e-mail with the new config.`}
            intent="move-devices"
            target={target}
          />
        ) : null}
      </div>
      {token ? (
        <NodeTokenNotice
          serverName={server.name}
          endpoint={server.endpoint}
          token={token}
          onDismiss={() => setToken(null)}
        />
      ) : null}
    </article>
  );
}
