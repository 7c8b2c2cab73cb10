import { Button } from "#app/components/ui/button.tsx";
import { Label, Select } from "#app/components/ui/input.tsx";
import { regionLabel } from "#app/lib/locations.ts";
import type { AccountDevice } from "#server/domain/account/account.ts";

/** Choose another region with room and confirm (the device keeps its keys; its config changes). */
export function MoveDeviceForm({
  device,
  busy,
  onMove,
  onCancel,
}: {
  device: AccountDevice;
  busy: boolean;
  onMove: (region: string) => void;
  onCancel: () => void;
}) {
  const fieldId = `device-move-${device.id}`;
  const hintId = `${fieldId}-hint`;
  return (
    <form
      className="flex flex-col gap-2 rounded-md border p-3"
      onSubmit={(event) => {
        event.preventDefault();
        onMove(String(new FormData(event.currentTarget).get("region") ?? ""));
      }}
    >
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
      <div className="flex gap-2">
        <Button type="submit" disabled={busy}>
          Move device
        </Button>
        <Button type="button" variant="outline" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
