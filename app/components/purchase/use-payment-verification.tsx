import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { MessageWithAccountLink } from "#app/components/message-with-account-link.tsx";
import { type IssuedConfig } from "./config-card.tsx";
import { usePendingConfigurationPoll } from "./pending-configuration.ts";
import {
  configsOf,
  DEVICE_LIMIT_ERROR,
  NO_ROOM_ERROR,
  PAYING_BROWSER_ERROR,
  RATE_LIMITED_ERROR,
  requestVerification,
  reversedOrderOf,
  type ReversedOrder,
  type VerificationResponse,
} from "./verification.ts";

// The success page's state: verifying the session, then the order's configs (or Configuration
// Pending, polled until they come), a refunded or disputed order, or an invalid session; and
// "Add another device", which asks verify-payment for the next slot.

export type View =
  | { state: "verifying" }
  | { state: "invalid" }
  | { state: "reversed"; order: ReversedOrder }
  | ({ state: "success" } & Verified);

/** What a successful verification shows: the plan, its configs (none while pending), who may add. */
export interface Verified {
  subscription: NonNullable<VerificationResponse["subscription"]>;
  configs: IssuedConfig[];
  mayClaimSlot: boolean;
  roomForDevice: boolean;
  /** Only then may the page say the config is on its way by e-mail. */
  configEmailed: boolean;
}

function verifiedView(result: VerificationResponse & { subscription: Verified["subscription"] }): Verified {
  return {
    subscription: result.subscription,
    configs: configsOf(result),
    // An answer of the basic shape alone (no flags) keeps the button; the server still decides.
    mayClaimSlot: result.mayClaimSlot ?? true,
    roomForDevice: result.roomForDevice ?? true,
    configEmailed: result.configEmailed === true,
  };
}

const READY_TOAST = ["Payment Successful", { description: "Your VPN configuration is ready." }] as const;

function verificationFailed() {
  toast.error("Verification Failed", { description: "Unable to verify payment. Please contact support." });
}

/** Every slot is taken (another tab or the account page used the last one): the button goes. */
function withSlotsTaken(view: Extract<View, { state: "success" }>): Extract<View, { state: "success" }> {
  return { ...view, subscription: { ...view.subscription, activeDevices: view.subscription.deviceLimit } };
}

/** The view a first answer shows (no toast: the effect says those). */
export function viewOf(result: VerificationResponse): View {
  if (result.success && result.subscription)
    return { state: "success", ...verifiedView({ ...result, subscription: result.subscription }) };
  const order = reversedOrderOf(result);
  return order ? { state: "reversed", order } : { state: "invalid" };
}

/**
 * `initial`: the page's loader verified already (the server renders the answer, so the page
 * works without JavaScript); the hook shows it from the first render and asks once more itself,
 * as before, for the toasts and the browser's own answer.
 */
export function usePaymentVerification(
  sessionId: string | null,
  initial: VerificationResponse | null = null,
) {
  const [view, setView] = useState<View>(() =>
    !sessionId ? { state: "invalid" } : initial ? viewOf(initial) : { state: "verifying" },
  );
  const [adding, setAdding] = useState(false);
  const started = useRef<string | null>(null);
  const serverAnswered = useRef(initial !== null);
  /** A refunded or disputed order has its own page, whichever call learnt of it. */
  const showIfReversed = (result: VerificationResponse) => {
    const order = reversedOrderOf(result);
    if (order) setView({ state: "reversed", order });
    return order !== null;
  };

  useEffect(() => {
    if (!sessionId) {
      toast.error("Error", { description: "No payment session found." });
      setView({ state: "invalid" });
      return;
    }
    if (started.current === sessionId) return;
    started.current = sessionId;
    // The server's answer (`initial`) stays on screen while the page asks for its own.
    if (!serverAnswered.current) setView({ state: "verifying" });
    serverAnswered.current = false;
    requestVerification(sessionId)
      .then((result) => {
        if (result.success && result.subscription) {
          const verified = verifiedView({ ...result, subscription: result.subscription });
          // Configuration Pending is not "ready": its page says what happens instead (issue 24).
          if (verified.configs.length > 0) toast.success(...READY_TOAST);
          setView({ state: "success", ...verified });
          return;
        }
        if (showIfReversed(result)) return;
        if (result.error === DEVICE_LIMIT_ERROR) {
          toast.error("Device Limit Reached", { description: result.message });
        } else {
          verificationFailed();
        }
        setView({ state: "invalid" });
      })
      .catch(() => {
        verificationFailed();
        setView({ state: "invalid" });
      });
  }, [sessionId]);

  const pending = view.state === "success" && view.configs.length === 0;
  const gaveUp = usePendingConfigurationPoll(sessionId, pending, (result) => {
    if (result.success && result.subscription) {
      const verified = verifiedView({ ...result, subscription: result.subscription });
      if (verified.configs.length === 0) return;
      toast.success(...READY_TOAST);
      setView({ state: "success", ...verified });
    } else if (showIfReversed(result)) {
      return;
    } else if (result.error !== RATE_LIMITED_ERROR) {
      verificationFailed();
      setView({ state: "invalid" });
    }
  });

  async function addDevice() {
    if (!sessionId || view.state !== "success" || adding) return;
    setAdding(true);
    try {
      const result = await requestVerification(sessionId, true);
      if (result.success && result.subscription && result.configSlot) {
        const verified = verifiedView({ ...result, subscription: result.subscription });
        setView((current) => (current.state === "success" ? { state: "success", ...verified } : current));
        toast.success("Device Added", {
          description: `The config for device ${result.configSlot} is ready.`,
        });
      } else if (showIfReversed(result)) {
        return;
      } else if (result.error === DEVICE_LIMIT_ERROR) {
        toast.error("Device Limit Reached", { description: result.message });
        setView((current) => (current.state === "success" ? withSlotsTaken(current) : current));
      } else if (result.error === PAYING_BROWSER_ERROR) {
        toast.error("Device Not Added", {
          description: <MessageWithAccountLink text={result.message ?? ""} plainAnchor />,
        });
        setView((current) => (current.state === "success" ? { ...current, mayClaimSlot: false } : current));
      } else if (result.error === NO_ROOM_ERROR) {
        toast.error("Device Not Added", { description: result.message });
        setView((current) => (current.state === "success" ? { ...current, roomForDevice: false } : current));
      } else {
        verificationFailed();
      }
    } catch {
      verificationFailed();
    } finally {
      setAdding(false);
    }
  }

  return { view, adding, gaveUp, addDevice };
}
