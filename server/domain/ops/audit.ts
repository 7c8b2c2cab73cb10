import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "#server/db/client.ts";
import { staffAuditLog, type AuditActor } from "#server/db/schema/index.ts";

/** Who acted: the signed-in staff member. */
export interface StaffActor {
  id: string;
  email: string;
}

export interface StaffAction {
  /** Dotted area.verb, e.g. `blog.publish`, `subscription.refund`. */
  action: string;
  targetType: string;
  targetId: string;
  reason?: string | null;
  details?: Record<string, unknown>;
}

/** The reason staff type into every confirmation dialog of an operations action. */
export const staffReasonSchema = z
  .string()
  .trim()
  .min(3, "Say why in a few words (at least 3 characters).")
  .max(500, "Keep the reason under 500 characters.");

/** Records `entry`; call it inside the action's own transaction, so the two stand or fall together. */
export async function recordStaffAction(
  executor: Executor,
  staff: StaffActor,
  entry: StaffAction,
  now = new Date(),
  actor: AuditActor = "staff",
): Promise<void> {
  await executor.insert(staffAuditLog).values({
    at: now,
    actor,
    staffUserId: staff.id,
    staffEmail: staff.email,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    reason: entry.reason ?? null,
    details: entry.details ?? {},
  });
}

/**
 * Records what a signed-in customer started themselves (a refund under the 7-day guarantee,
 * decision 136): the same log, `actor` customer, their sign-in id and address as who acted.
 */
export function recordCustomerAction(
  executor: Executor,
  customer: StaffActor,
  entry: StaffAction,
  now = new Date(),
): Promise<void> {
  return recordStaffAction(executor, customer, entry, now, "customer");
}

const filterText = z.string().trim().max(200).optional();

/**
 * POST /api/admin/audit-log: exact-match filters, newest first (by time, then id: entries
 * written in one instant keep one order), paged by the id of the last entry seen.
 */
export const auditLogQuerySchema = z.object({
  action: filterText,
  staffEmail: filterText,
  targetType: filterText,
  targetId: filterText,
  before: z.number().int().positive().optional(),
  limit: z.number().int().min(1).max(100).default(50),
});

export type AuditEntry = typeof staffAuditLog.$inferSelect;

export async function listAuditLog(
  executor: Executor,
  query: z.infer<typeof auditLogQuerySchema>,
): Promise<{ entries: AuditEntry[]; nextBefore: number | null }> {
  const conditions: SQL[] = [];
  if (query.action) conditions.push(eq(staffAuditLog.action, query.action));
  if (query.staffEmail) conditions.push(eq(staffAuditLog.staffEmail, query.staffEmail.toLowerCase()));
  if (query.targetType) conditions.push(eq(staffAuditLog.targetType, query.targetType));
  if (query.targetId) conditions.push(eq(staffAuditLog.targetId, query.targetId));
  if (query.before) {
    conditions.push(
      sql`(${staffAuditLog.at}, ${staffAuditLog.id}) < (select at, id from ${staffAuditLog} where id = ${query.before})`,
    );
  }
  const rows = await executor
    .select()
    .from(staffAuditLog)
    .where(and(...conditions))
    .orderBy(desc(staffAuditLog.at), desc(staffAuditLog.id))
    .limit(query.limit + 1);
  const entries = rows.slice(0, query.limit);
  return { entries, nextBefore: rows.length > query.limit ? entries.at(-1)!.id : null };
}

/**
 * The console page of what an entry touched, or null when it has none (an export). A device
 * links to its subscription's page (its entries carry `subscriptionId`).
 */
export function auditTargetHref(
  entry: Pick<AuditEntry, "targetType" | "targetId" | "details">,
): string | null {
  const id = encodeURIComponent(entry.targetId);
  switch (entry.targetType) {
    case "subscription":
      return `/admin/subscriptions/${id}`;
    case "device": {
      const subscriptionId = entry.details.subscriptionId;
      return typeof subscriptionId === "string"
        ? `/admin/subscriptions/${encodeURIComponent(subscriptionId)}#device-${id}`
        : null;
    }
    case "vpn-server":
      return `/admin/servers#server-${id}`;
    case "post":
      return `/admin/blog/edit/${id}`;
    case "message":
      return `/admin/messages?id=${id}`;
    default:
      return null;
  }
}
