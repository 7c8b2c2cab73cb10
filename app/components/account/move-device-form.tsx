import { Button } from "#app/components/ui/button.tsx";
import { Label, Select } from "#app/components/ui/input.tsx";
import { regionLabel } from "#core/locations.ts";
import type { AccountDevice } from "#server/domain/account/account.ts";
import { RefusalMessage, StepCancel, useAccountFetcher } from "./account-form.tsx";

/** Choose another region with room and confirm (the device keeps its keys; its config changes). */
export function MoveDeviceForm({ device }: { device: AccountDevice }) {
  const { fetcher, busy, refusal } = useAccountFetcher("move-device", device.id);
  const fieldId = `device-move-${device.id}`;
  const hintId = `${fieldId}-hint`;
  return (
    <div className="flex flex-col gap-2 rounded-md border p-3">
      <fetcher.Form method="post" className="flex flex-col gap-2">
        <input type="hidden" name="intent" value="move-device" />
        <input type="hidden" name="deviceId" value={device.id} />
        <Label htmlFor={fieldId}>Move {device.name} to</Label>
        <Select id={fieldId} name="region" aria-describedby={hintId} defaultValue={device.moveRegions[0]}>
          {device.moveRegions.map((region) => (
            <option key={region} value={region}>
              {regionLabel(region)}
            </option>
          ))}
        </Select>
        <p id={hintId} className="text-sm text-muted-foreground">
          Its current config stops working. Afterwards, download the new config and import it in WireGuard in
          place of the old one.
        </p>
        <div>
          <Button type="submit" disabled={busy}>
            Move device
          </Button>
        </div>
      </fetcher.Form>
      <div>
        <StepCancel />
      </div>
      <RefusalMessage message={refusal} />
    </div>
  );
}
