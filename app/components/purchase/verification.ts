import type { PlanType } from "#core/plans.ts";
import type { IssuedConfig } from "#app/components/purchase/config-card.tsx";
// Type-only: erased from the browser bundle.
import type { AlternateOffer } from "#server/domain/vpn/config-file.ts";

export interface VerificationResponse {
  success: boolean;
  subscription?: { planType: PlanType; deviceLimit: number; expiresAt: string; activeDevices: number };
  downloadUrl?: string | null;
  configSlot?: number | null;
  /** The config e-mail goes to the order's address; false when the order has none. */
  configEmailed?: boolean;
  /** Every config this browser may see (all live devices for the browser that paid). */
  devices?: { slot: number; downloadUrl: string; alternate?: AlternateOffer | null }[];
  /** This browser may claim another slot (the one that paid, or the signed-in owner). */
  mayClaimSlot?: boolean;
  /** Some VPN server can take one more device now. */
  roomForDevice?: boolean;
  error?: string;
  message?: string;
  /** With `error: "refunded"` or `"disputed"` (410): when the payment went back. */
  refundedAt?: string;
  disputedAt?: string;
}

/** A refunded or disputed order: what the success page and the account page show instead of a config. */
export interface ReversedOrder {
  reversal: "refunded" | "disputed";
  at: string;
}

/** The reversal a verify-payment answer reports, if any (410 `refunded` / `disputed`). */
export function reversedOrderOf(result: VerificationResponse): ReversedOrder | null {
  if (result.error === "refunded" && result.refundedAt)
    return { reversal: "refunded", at: result.refundedAt };
  if (result.error === "disputed" && result.disputedAt)
    return { reversal: "disputed", at: result.disputedAt };
  return null;
}

/** POST /api/verify-payment; any answer with a JSON body is returned, a network failure throws. */
export async function requestVerification(
  sessionId: string,
  newDevice = false,
): Promise<VerificationResponse> {
  const response = await fetch("/api/verify-payment", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(newDevice ? { sessionId, newDevice: true } : { sessionId }),
  });
  const body = (await response.json().catch(() => null)) as VerificationResponse | null;
  if (!body || typeof body.success !== "boolean")
    throw new Error(`verify-payment answered HTTP ${response.status}`);
  return body;
}

/**
 * The configs a successful verification lists, by slot (none while the configuration is pending).
 * An answer of the basic shape alone (no `devices`) still shows its one config.
 */
export function configsOf(result: VerificationResponse): IssuedConfig[] {
  if (result.devices)
    return result.devices.map((device) => ({
      downloadUrl: device.downloadUrl,
      configSlot: device.slot,
      alternate: device.alternate ?? null,
    }));
  if (!result.downloadUrl) return [];
  return [{ downloadUrl: result.downloadUrl, configSlot: result.configSlot ?? 1 }];
}

export const DEVICE_LIMIT_ERROR = "Device limit reached";
/** verify-payment's refusal of `newDevice` from a browser other than the one that paid (403). */
export const PAYING_BROWSER_ERROR = "Paying browser required";
/** No VPN server can take another device now (503): the page stops offering Add another device. */
export const NO_ROOM_ERROR = "No VPN server available";
/** Asked too often (per client); the pending page's next ask tries again. */
export const RATE_LIMITED_ERROR = "Too many requests";

/** docs/product.md §4.5: Expires on for the pass, Renews on for the yearly plan, Next Billing otherwise. */
export function dateLabel(planType: PlanType): string {
  if (planType === "unlock") return "Expires on";
  if (planType === "pro_yearly") return "Renews on";
  return "Next Billing";
}
