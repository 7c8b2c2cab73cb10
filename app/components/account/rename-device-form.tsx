import { Button } from "#app/components/ui/button.tsx";
import { Input, Label } from "#app/components/ui/input.tsx";
import type { AccountDevice } from "#server/domain/account/account.ts";
import { RefusalMessage, StepCancel, useAccountFetcher } from "./account-form.tsx";

/** A new name for the device (at most 40 characters; the server says why one is refused). */
export function RenameDeviceForm({ device }: { device: AccountDevice }) {
  const { fetcher, busy, refusal } = useAccountFetcher("rename-device", device.id);
  const nameFieldId = `device-name-${device.id}`;
  return (
    <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap sm:items-end">
      <fetcher.Form method="post" className="flex flex-1 flex-col gap-2 sm:flex-row sm:items-end">
        <input type="hidden" name="intent" value="rename-device" />
        <input type="hidden" name="deviceId" value={device.id} />
        <div className="flex flex-1 flex-col gap-1">
          <Label htmlFor={nameFieldId}>Device name</Label>
          <Input id={nameFieldId} name="name" defaultValue={device.name} maxLength={40} required autoFocus />
        </div>
        <Button type="submit" disabled={busy}>
          Save
        </Button>
      </fetcher.Form>
      <StepCancel />
      <RefusalMessage message={refusal} />
    </div>
  );
}
