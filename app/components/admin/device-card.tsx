import { ConfirmAction } from "#app/components/admin/confirm-action.tsx";
import { formatDateTimeUtc } from "#core/format.ts";
// Type-only: erased from the browser bundle.
import type { SubscriptionPage } from "#server/domain/ops/subscription-page.ts";

type Device = SubscriptionPage["devices"][number];

const when = (value: string | null) => formatDateTimeUtc(value, "—");

/** Resend config, new keys and revoke: posts to the subscription page's action. */
function DeviceActions({ device }: { device: Device }) {
  if (device.revokedAt)
    return <span className="text-muted-foreground">Revoked {when(device.revokedAt)}</span>;
  const target = { deviceId: device.id };
  return (
    <div className="flex flex-wrap gap-2">
      <ConfirmAction
        label="Resend config"
        title={`Resend the config of ${device.name}`}
        description="E-mails the customer this device's config again, with its current download link."
        intent="resend-config"
        target={target}
      />
      <ConfirmAction
        label="New keys"
        title={`New keys for ${device.name}`}
        description="The old config stops working; the customer is e-mailed the new one."
        intent="rekey"
        target={target}
      />
      <ConfirmAction
        label="Revoke"
        title={`Revoke ${device.name}`}
        description="Its config stops working, its download link answers 410 and the slot is free. The customer is told."
        variant="destructive"
        intent="revoke"
        target={target}
      />
    </div>
  );
}

/** One device of the subscription on the staff page: where it is, its activity, its actions. */
export function DeviceCard({ device }: { device: Device }) {
  return (
    <li id={`device-${device.id}`} className="rounded-lg border p-4 text-sm">
      <h3 className="font-semibold">
        {device.name} <span className="font-normal text-muted-foreground">(slot {device.slot})</span>
      </h3>
      <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1">
        <dt className="text-muted-foreground">Server</dt>
        <dd>{device.server ?? "—"}</dd>
        <dt className="text-muted-foreground">Addresses</dt>
        <dd className="break-all font-mono text-xs">
          {device.ipv4} · {device.ipv6}
        </dd>
        <dt className="text-muted-foreground">Created</dt>
        <dd>{when(device.createdAt)}</dd>
        <dt className="text-muted-foreground">Activated</dt>
        <dd>{device.activatedAt ? `${when(device.activatedAt)} (${device.activatedVia})` : "Not yet"}</dd>
        <dt className="text-muted-foreground">Last handshake</dt>
        <dd>{when(device.lastHandshakeAt)}</dd>
      </dl>
      <div className="mt-3">
        <DeviceActions device={device} />
      </div>
    </li>
  );
}
