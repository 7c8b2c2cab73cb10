import { Info } from "lucide-react";
import { MessageWithAccountLink } from "#app/components/message-with-account-link.tsx";

/** Said in place of "Add a device" when adding cannot succeed; nothing when there is nothing to say. */
export function AddDeviceRefusalNote({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p
      className="flex items-start gap-2 text-left text-sm text-muted-foreground"
      data-testid="add-device-refusal"
    >
      <Info aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
      <span>
        <MessageWithAccountLink text={message} />
      </span>
    </p>
  );
}
