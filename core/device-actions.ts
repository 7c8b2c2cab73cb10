// Which device actions a page offers: an action that cannot succeed is not shown,
// and the page says why instead. The account page, the success page and verify-payment share it.

/** The page address that refusal messages name, shown as a link wherever the message is. */
export const ACCOUNT_PATH = "/account";

/** Why "Add a device" is not offered; null when it is. */
export type AddDeviceRefusal = "ended" | "limit" | "other-browser" | "no-room";

export interface AddDeviceState {
  /** The subscription is paid up and inside its period. */
  usable: boolean;
  deviceLimit: number;
  /** Devices that hold a working config. */
  liveDevices: number;
  /**
   * The caller may claim a slot: always on /account (its session proves the owner); on the
   * success page only the browser that paid or the signed-in owner (verify-payment's rule).
   */
  mayClaimSlot: boolean;
  /** Some VPN server can take one more device now. */
  roomForDevice: boolean;
}

export function addDeviceRefusal(state: AddDeviceState): AddDeviceRefusal | null {
  if (!state.usable) return "ended";
  if (state.liveDevices >= state.deviceLimit) return "limit";
  if (!state.mayClaimSlot) return "other-browser";
  if (!state.roomForDevice) return "no-room";
  return null;
}

/**
 * What the page says in place of the button. `/account` in a message is rendered as a link
 * (`MessageWithAccountLink`). An ended plan and a one-device plan's one device need no words: the
 * page shows both already.
 */
export function addDeviceRefusalMessage(
  refusal: AddDeviceRefusal,
  deviceLimit: number,
  page: "account" | "success",
): string | null {
  switch (refusal) {
    case "limit":
      if (deviceLimit <= 1) return null;
      return `All ${deviceLimit} devices of this plan have a config. To set up another one, revoke a device you no longer use${page === "account" ? "" : ` at ${ACCOUNT_PATH}`}.`;
    case "other-browser":
      return `Adding a device needs the browser that paid for this plan: open this page there, or sign in to your account at ${ACCOUNT_PATH} with the e-mail address you bought with.`;
    case "no-room":
      return "No VPN server has room for another device right now. Please try again later.";
    default:
      return null;
  }
}
