import { z } from "zod";

// What each account change takes: one schema per change, read by the /account page's action (a
// form) and by its /api/account/* JSON endpoint alike.

const subscriptionTarget = { subscriptionId: z.uuid() };
const deviceTarget = { deviceId: z.uuid() };

export const addDeviceSchema = z.object(subscriptionTarget).strict();
export const cancelSubscriptionSchema = z.object(subscriptionTarget).strict();
export const resumeSubscriptionSchema = z.object(subscriptionTarget).strict();
export const billingLinkSchema = z.object(subscriptionTarget).strict();
/** "Refund this purchase" under the 7-day guarantee (billing/guarantee.ts). */
export const guaranteeRefundSchema = z.object(subscriptionTarget).strict();

export const revokeDeviceSchema = z.object(deviceTarget).strict();
export const newKeysSchema = z.object(deviceTarget).strict();

export const renameDeviceSchema = z
  .object({
    ...deviceTarget,
    name: z
      .string()
      .trim()
      .min(1, "Give the device a name.")
      .max(40, "A device name has at most 40 characters.")
      // No controls, no format characters (bidi overrides such as U+202E would let a name show
      // as something else in the staff console and e-mails), no separators, no private use or
      // unpaired surrogates. The zero-width joiner alone stays: emoji sequences need it.
      .regex(
        /^(?:(?![\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Zl}\p{Zp}])[\s\S]|\u200d)*$/u,
        "A device name cannot contain control or formatting characters.",
      ),
  })
  .strict();

export const moveDeviceSchema = z
  .object({
    ...deviceTarget,
    // Any text: a region without a server with room answers 409, as one that just filled up.
    region: z.string().min(1, "Choose a location.").max(100, "Choose one of the locations offered."),
  })
  .strict();
