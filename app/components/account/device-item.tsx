import { Download, KeyRound, MapPin, Pencil, Trash2 } from "lucide-react";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import {
  AlternatePortOffer,
  ConfigQrCode,
  QrCodeToggle,
  saveConfig,
} from "#app/components/purchase/config-card.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Input, Label } from "#app/components/ui/input.tsx";
import { configFileName } from "#app/lib/config-file-name.ts";
import { formatLongDate } from "#app/lib/format.ts";
import { regionLabel } from "#app/lib/locations.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
import type { AccountDevice } from "#server/domain/account/account.ts";
import { accountCall } from "./account-api.ts";
import { MoveDeviceForm } from "./move-device-form.tsx";
import { connectionLabel } from "./time.ts";
import { transferDetail, transferLabel } from "./transfer.ts";

type Mode = "view" | "rename" | "revoke" | "rekey" | "move";

/** One live device: its details and what its owner may do with it. */
export function DeviceItem({
  device,
  now,
  usable,
  onChanged,
}: {
  device: AccountDevice;
  now: string;
  usable: boolean;
  onChanged: () => void;
}) {
  const { brandName } = usePublicConfig();
  const [mode, setMode] = useState<Mode>("view");
  const [showQr, setShowQr] = useState(false);
  const [busy, setBusy] = useState(false);
  /** Where it was just moved: the page says so, with what to do next, until it is reloaded. */
  const [movedTo, setMovedTo] = useState<string | null>(null);
  const fileName = configFileName(brandName, device.slot);
  const nameFieldId = `device-name-${device.id}`;

  async function run(path: string, body: unknown, success: string) {
    setBusy(true);
    const result = await accountCall(path, body);
    setBusy(false);
    if (!result.ok) {
      toast.error(result.error ?? "Something went wrong", { description: result.message });
      return false;
    }
    toast.success(success);
    setMode("view");
    setShowQr(false);
    onChanged();
    return true;
  }

  async function move(region: string) {
    if (await run("devices/move", { deviceId: device.id, region }, `Device moved to ${regionLabel(region)}`))
      setMovedTo(regionLabel(region));
  }

  async function rename(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name") ?? "");
    await run("devices/rename", { deviceId: device.id, name }, "Device renamed");
  }

  return (
    <li className="flex flex-col gap-3 rounded-lg border p-4" data-testid={`device-${device.slot}`}>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 className="break-all font-semibold" data-testid="device-name">
          {device.name}
        </h3>
        <span className="text-sm text-muted-foreground" data-testid="device-connection">
          {connectionLabel(device.lastHandshakeAt, now)}
        </span>
      </div>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-muted-foreground">Location</dt>
        <dd data-testid="device-location">
          {device.server ? `${regionLabel(device.server.region)} · ${device.server.name}` : "None"}
        </dd>
        <dt className="text-muted-foreground">Created</dt>
        <dd>{formatLongDate(device.createdAt)}</dd>
        <dt className="text-muted-foreground">Activated</dt>
        <dd>{device.activatedAt ? formatLongDate(device.activatedAt) : "Not yet"}</dd>
        {device.transfer ? (
          <>
            <dt className="text-muted-foreground">Data</dt>
            <dd title={transferDetail(device.transfer)} data-testid="device-transfer">
              {transferLabel(device.transfer)}
            </dd>
          </>
        ) : null}
      </dl>

      {mode === "rename" ? (
        <form className="flex flex-col gap-2 sm:flex-row sm:items-end" onSubmit={rename}>
          <div className="flex flex-1 flex-col gap-1">
            <Label htmlFor={nameFieldId}>Device name</Label>
            <Input
              id={nameFieldId}
              name="name"
              defaultValue={device.name}
              maxLength={40}
              required
              autoFocus
            />
          </div>
          <div className="flex gap-2">
            <Button type="submit" disabled={busy}>
              Save
            </Button>
            <Button type="button" variant="outline" onClick={() => setMode("view")}>
              Cancel
            </Button>
          </div>
        </form>
      ) : null}

      {device.configOutdated && !movedTo ? (
        <p
          className="rounded-md bg-amber-50 p-3 text-sm text-amber-950"
          role="note"
          data-testid="config-outdated"
        >
          New settings for this device: download its config again and import it in WireGuard in place of the
          old one. Its server changed since this config was last downloaded.
        </p>
      ) : null}

      {movedTo ? (
        <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-950" role="status">
          Moved to {movedTo}. Download the new config and import it in WireGuard in place of the old one: the
          old one no longer connects.
        </p>
      ) : null}

      {mode === "move" ? (
        <MoveDeviceForm device={device} busy={busy} onMove={move} onCancel={() => setMode("view")} />
      ) : null}

      {mode === "revoke" ? (
        <ConfirmDeviceChange
          question={`Revoke ${device.name}? Its config stops working and its slot becomes free for another device.`}
          confirmLabel="Revoke device"
          cancelLabel="Keep it"
          busy={busy}
          onConfirm={() => run("devices/revoke", { deviceId: device.id }, "Device revoked")}
          onCancel={() => setMode("view")}
        />
      ) : null}

      {mode === "rekey" ? (
        <ConfirmDeviceChange
          question={`New keys for ${device.name}? Its current config stops working at once: afterwards, download the new config and import it in WireGuard in place of the old one.`}
          confirmLabel="Make new keys"
          cancelLabel="Keep current keys"
          busy={busy}
          onConfirm={() =>
            run("devices/new-keys", { deviceId: device.id }, "New keys ready: download the new config")
          }
          onCancel={() => setMode("view")}
        />
      ) : null}

      {mode === "view" ? (
        <div className="flex flex-wrap gap-2">
          {usable ? (
            <>
              <Button
                size="sm"
                onClick={async () => {
                  // A fresh copy is current: the page's note about new settings goes away.
                  if ((await saveConfig(device.downloadUrl, fileName)) && device.configOutdated) onChanged();
                }}
              >
                <Download aria-hidden="true" />
                Download .conf
              </Button>
              <QrCodeToggle size="sm" shown={showQr} onToggle={() => setShowQr((shown) => !shown)} />
            </>
          ) : null}
          <Button size="sm" variant="outline" onClick={() => setMode("rename")}>
            <Pencil aria-hidden="true" />
            Rename
          </Button>
          {usable ? (
            <Button size="sm" variant="outline" onClick={() => setMode("rekey")}>
              <KeyRound aria-hidden="true" />
              New keys
            </Button>
          ) : null}
          {usable && device.moveRegions.length > 0 ? (
            <Button size="sm" variant="outline" onClick={() => setMode("move")}>
              <MapPin aria-hidden="true" />
              Move
            </Button>
          ) : null}
          <Button size="sm" variant="outline" onClick={() => setMode("revoke")}>
            <Trash2 aria-hidden="true" />
            Revoke
          </Button>
        </div>
      ) : null}
      {showQr && mode === "view" ? (
        <ConfigQrCode downloadUrl={device.downloadUrl} configSlot={device.slot} />
      ) : null}
      {usable && mode === "view" && device.alternate ? (
        <AlternatePortOffer alternate={device.alternate} slot={device.slot} />
      ) : null}
    </li>
  );
}

/**
 * Asks before a change that stops the installed config from working (issue 24): nothing happens
 * until the owner confirms; the cancel button leaves everything as it was.
 */
function ConfirmDeviceChange({
  question,
  confirmLabel,
  cancelLabel,
  busy,
  onConfirm,
  onCancel,
}: {
  question: string;
  confirmLabel: string;
  cancelLabel: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <div className="flex flex-col gap-2 rounded-md bg-red-50 p-3" role="alert">
      <p className="text-sm text-red-900">{question}</p>
      <div className="flex flex-wrap gap-2">
        <Button variant="destructive" disabled={busy} onClick={onConfirm}>
          {confirmLabel}
        </Button>
        <Button variant="outline" onClick={onCancel}>
          {cancelLabel}
        </Button>
      </div>
    </div>
  );
}
