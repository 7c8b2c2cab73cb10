import type { EmailData, EmailTemplate } from "../email-data.ts";
import type { RenderedEmail } from "../render.ts";
import { configDeliveryEmail } from "./config-delivery.tsx";
import { configUpdateEmail } from "./config-update.tsx";
import { contactMessageEmail } from "./contact-message.tsx";
import { deviceNoticeEmail } from "./device-notice.tsx";
import { disputeNoticeEmail } from "./dispute-notice.tsx";
import type { EmailSite } from "./layout.tsx";
import { planChangedEmail } from "./plan-change.tsx";
import { receiptEmail } from "./receipt.tsx";
import { refundedEmail, resumedEmail } from "./refund-notices.tsx";
import { signInEmail } from "./sign-in.tsx";
import { confirmationEmail, existingAccountEmail, passwordResetEmail } from "./staff-account.tsx";
import { staffAlertEmail } from "./staff-alert.tsx";
import { supportReplyEmail } from "./support-reply.tsx";
import {
  cancelledEmail,
  expiredEmail,
  passEndingEmail,
  paymentFailedEmail,
  renewalReminderEmail,
} from "./subscription-notices.tsx";

/** Each template's renderer, by the name the outbox stores. */
export const RENDERERS: {
  [T in EmailTemplate]: (site: EmailSite, data: EmailData<T>) => Promise<RenderedEmail>;
} = {
  receipt: receiptEmail,
  "vpn-config": configDeliveryEmail,
  "config-update": configUpdateEmail,
  "device-revoked": (site, notice) => deviceNoticeEmail(site, "revoked", notice),
  "device-rekeyed": (site, notice) => deviceNoticeEmail(site, "rekeyed", notice),
  "device-moved": (site, notice) => deviceNoticeEmail(site, "moved", notice),
  "device-relocated": (site, notice) => deviceNoticeEmail(site, "relocated", notice),
  "renewal-reminder": renewalReminderEmail,
  "pass-ending": passEndingEmail,
  "payment-failed": paymentFailedEmail,
  "subscription-cancelled": cancelledEmail,
  "subscription-expired": expiredEmail,
  "subscription-resumed": resumedEmail,
  "subscription-refunded": refundedEmail,
  "plan-changed": planChangedEmail,
  "account.sign-in": signInEmail,
  "auth.verify-email": confirmationEmail,
  "auth.password-reset": passwordResetEmail,
  "auth.existing-account": existingAccountEmail,
  contact: contactMessageEmail,
  "support-reply": supportReplyEmail,
  "dispute-notice": disputeNoticeEmail,
  "staff-alert": staffAlertEmail,
};
