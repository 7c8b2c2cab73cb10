import { useEffect, useState } from "react";
import type { Plan } from "#core/plans.ts";
import {
  readSelectedPlan,
  readSubscriberDetails,
  type SubscriberDetails,
} from "#app/lib/purchase-storage.ts";

export interface StoredPurchase {
  /** False during the server render and the first client render: storage is not read yet. */
  ready: boolean;
  plan: Plan | null;
  details: SubscriberDetails | null;
}

/**
 * Reads localStorage after hydration. Until then `ready` is false and pages show a neutral
 * placeholder, so neither the server HTML nor the first paint claims "No plan selected" wrongly.
 */
export function useStoredPurchase(): StoredPurchase {
  const [state, setState] = useState<StoredPurchase>({ ready: false, plan: null, details: null });
  useEffect(() => {
    setState({ ready: true, plan: readSelectedPlan(), details: readSubscriberDetails() });
  }, []);
  return state;
}
