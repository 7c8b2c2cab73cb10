import { Download, KeyRound, MapPin, Pencil, Trash2 } from "lucide-react";
import { useState } from "react";
import { useRevalidator, useSearchParams } from "react-router";
import {
  AlternatePortOffer,
  ConfigQrCode,
  DownloadConfigLink,
  qrPathOf,
  QrCodeToggle,
} from "#app/components/purchase/config-card.tsx";
import { configFileName } from "#core/config-file-name.ts";
import { formatLongDate } from "#core/format.ts";
import { regionLabel } from "#core/locations.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
import type { AccountDevice } from "#server/domain/account/account.ts";
import { ConfirmDeviceChange, StepButton } from "./account-form.tsx";
import { MoveDeviceForm } from "./move-device-form.tsx";
import { RenameDeviceForm } from "./rename-device-form.tsx";
import { connectionLabel } from "./time.ts";
import { transferDetail, transferLabel } from "./transfer.ts";

const STEPS = ["rename", "revoke", "rekey", "move"] as const;
type Step = (typeof STEPS)[number];

/** The step of this device the address opens (`?device=<id>&step=…`), if any. */
function stepOf(params: URLSearchParams, deviceId: string): Step | null {
  if (params.get("device") !== deviceId) return null;
  return STEPS.find((step) => step === params.get("step")) ?? null;
}

/** One live device: its details and what its owner may do with it. */
export function DeviceItem({ device, now, usable }: { device: AccountDevice; now: string; usable: boolean }) {
  const { brandName } = usePublicConfig();
  const revalidator = useRevalidator();
  const [params] = useSearchParams();
  const [showQr, setShowQr] = useState(false);
  const step = stepOf(params, device.id);
  // Where it was just moved (the move's redirect says which device): what to do next.
  const movedTo =
    params.get("moved") === device.id && device.server ? regionLabel(device.server.region) : null;
  const fileName = configFileName(brandName, device.slot);
  const opens = (next: Step) => ({ device: device.id, step: next });

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

      {step === "rename" ? <RenameDeviceForm device={device} /> : null}

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

      {step === "move" ? <MoveDeviceForm device={device} /> : null}

      {step === "revoke" ? (
        <ConfirmDeviceChange
          intent="revoke-device"
          deviceId={device.id}
          question={`Revoke ${device.name}? Its config stops working and its slot becomes free for another device.`}
          confirmLabel="Revoke device"
          cancelLabel="Keep it"
        />
      ) : null}

      {step === "rekey" ? (
        <ConfirmDeviceChange
          intent="new-keys"
          deviceId={device.id}
          question={`New keys for ${device.name}? Its current config stops working at once: afterwards, download the new config and import it in WireGuard in place of the old one.`}
          confirmLabel="Make new keys"
          cancelLabel="Keep current keys"
        />
      ) : null}

      {step === null ? (
        <div className="flex flex-wrap gap-2">
          {usable ? (
            <>
              <DownloadConfigLink
                size="sm"
                downloadUrl={device.downloadUrl}
                fileName={fileName}
                onSaved={() => {
                  // A fresh copy is current: the page's note about new settings goes away.
                  if (device.configOutdated) void revalidator.revalidate();
                }}
              >
                <Download aria-hidden="true" />
                Download .conf
              </DownloadConfigLink>
              <QrCodeToggle
                qrPath={qrPathOf(device.downloadUrl)}
                size="sm"
                shown={showQr}
                onToggle={() => setShowQr((shown) => !shown)}
              />
            </>
          ) : null}
          <StepButton size="sm" fields={opens("rename")}>
            <Pencil aria-hidden="true" />
            Rename
          </StepButton>
          {usable ? (
            <StepButton size="sm" fields={opens("rekey")}>
              <KeyRound aria-hidden="true" />
              New keys
            </StepButton>
          ) : null}
          {usable && device.moveRegions.length > 0 ? (
            <StepButton size="sm" fields={opens("move")}>
              <MapPin aria-hidden="true" />
              Move
            </StepButton>
          ) : null}
          <StepButton size="sm" fields={opens("revoke")}>
            <Trash2 aria-hidden="true" />
            Revoke
          </StepButton>
        </div>
      ) : null}
      {showQr && step === null ? (
        <ConfigQrCode downloadUrl={device.downloadUrl} configSlot={device.slot} />
      ) : null}
      {usable && step === null && device.alternate ? (
        <AlternatePortOffer alternate={device.alternate} slot={device.slot} />
      ) : null}
    </li>
  );
}
