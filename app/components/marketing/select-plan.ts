import type { Plan } from "#app/lib/plans.ts";

/**
 * Stores the chosen plan (purchase-storage's `storeSelectedPlan`). Loaded on click, because
 * that module brings zod (~25 KB compressed) that the marketing pages do not otherwise need.
 */
export async function selectPlan(plan: Plan): Promise<void> {
  const { storeSelectedPlan } = await import("#app/lib/purchase-storage.ts");
  storeSelectedPlan(plan);
}
