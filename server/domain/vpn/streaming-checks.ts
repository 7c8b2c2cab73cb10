import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { MAX_STREAMING_SERVICES, type StreamingCheck, type StreamingResult } from "#agent/node-api.ts";
import { isUniqueViolation, type Database, type Executor } from "#server/db/client.ts";
import {
  streamingChecks,
  streamingServices,
  vpnServers,
  type StreamingService,
} from "#server/db/schema/index.ts";
import { conflict, notFound } from "#server/domain/errors.ts";
import { recordStaffAction, staffReasonSchema, type StaffActor } from "#server/domain/ops/audit.ts";

// Streaming checks from every exit (decision 133): staff list the services buyers come for; each
// node's agent fetches them through its exit and reports; the console shows ✓ or ✗ per server and
// service, an alert fires when a required one stops working through a server
// (server/domain/ops/alerts.ts), and new devices go to servers that pass every required check
// when one can take them (address-allocation.ts `failsRequiredCheck`).

export { MAX_STREAMING_SERVICES };

const text = (max: number, what: string) =>
  z.string().trim().min(1, `${what} is empty`).max(max, `${what} is at most ${max} characters`);

/** An http(s) address without credentials: the agent keeps none, and the URL is shown to staff. */
const serviceUrlSchema = z
  .string()
  .trim()
  .max(2048, "the URL is at most 2048 characters")
  .pipe(z.url({ protocol: /^https?$/, message: "the URL must be an http:// or https:// address" }))
  .refine((url) => {
    // Zod runs this refinement even when the URL above did not parse.
    const parsed = URL.parse(url);
    return parsed === null || (parsed.username === "" && parsed.password === "");
  }, "the URL must not carry a user name or password");

/** A form's select (`yes`/`no`) or a JSON boolean; required unless said otherwise. */
const requiredSchema = z
  .union([z.boolean(), z.enum(["yes", "no"]).transform((value) => value === "yes")])
  .default(true);

/** A service's fields, as staff and `npm run vpn -- add-service` give them. */
export const streamingServiceFieldsSchema = z.object({
  name: text(60, "the name"),
  url: serviceUrlSchema,
  expectStatus: z.coerce
    .number({ message: "the expected status is a number" })
    .int("the expected status is an HTTP status, 100-599")
    .min(100, "the expected status is an HTTP status, 100-599")
    .max(599, "the expected status is an HTTP status, 100-599")
    .default(200),
  bodyContains: text(200, "the text to find").optional(),
  bodyLacks: text(200, "the text that must not be there").optional(),
  required: requiredSchema,
});

/** POST /api/admin/streaming-services/add (and the /admin/servers form). */
export const addStreamingServiceSchema = streamingServiceFieldsSchema
  .extend({ reason: staffReasonSchema })
  .strict();

/** POST /api/admin/streaming-services/remove. */
export const removeStreamingServiceSchema = z
  .object({ serviceId: z.uuid(), reason: staffReasonSchema })
  .strict();

const target = (serviceId: string) => ({ targetType: "streaming-service", targetId: serviceId });

/** Lists a service to check (at most MAX_STREAMING_SERVICES, one name once). */
export async function addStreamingService(
  tx: Executor,
  fields: z.infer<typeof streamingServiceFieldsSchema>,
): Promise<StreamingService> {
  // One at a time: two staff adding the tenth and eleventh at once cannot both fit.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('streaming-services'))`);
  const [listed] = await tx.select({ value: count() }).from(streamingServices);
  if (Number(listed?.value ?? 0) >= MAX_STREAMING_SERVICES)
    throw conflict(
      `At most ${MAX_STREAMING_SERVICES} services are checked from each server; remove one first.`,
    );
  return tx
    .insert(streamingServices)
    .values({
      name: fields.name,
      url: fields.url,
      expectStatus: fields.expectStatus,
      bodyContains: fields.bodyContains ?? null,
      bodyLacks: fields.bodyLacks ?? null,
      required: fields.required,
    })
    .returning()
    .then((rows) => rows[0]!)
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw conflict(`A service named "${fields.name}" is checked already.`);
      throw error;
    });
}

/** Stops checking a service, named by its id or its name; its results go with it. */
export async function removeStreamingService(tx: Executor, ref: string): Promise<StreamingService> {
  const byId = z.uuid().safeParse(ref).success;
  // Its results go with it (cascade), so its alerts resolve at the next check.
  const [service] = await tx
    .delete(streamingServices)
    .where(byId ? eq(streamingServices.id, ref) : eq(streamingServices.name, ref))
    .returning();
  if (!service) throw notFound("No such streaming service: it may have been removed already.");
  return service;
}

export async function addStreamingServiceAsStaff(
  db: Database,
  staff: StaffActor,
  { reason, ...fields }: z.infer<typeof addStreamingServiceSchema>,
) {
  return db.transaction(async (tx) => {
    const service = await addStreamingService(tx, fields);
    await recordStaffAction(tx, staff, {
      action: "streaming-service.add",
      ...target(service.id),
      reason,
      details: { ...fields },
    });
    return { service };
  });
}

export async function removeStreamingServiceAsStaff(
  db: Database,
  staff: StaffActor,
  { serviceId, reason }: z.infer<typeof removeStreamingServiceSchema>,
) {
  return db.transaction(async (tx) => {
    const service = await removeStreamingService(tx, serviceId);
    await recordStaffAction(tx, staff, {
      action: "streaming-service.remove",
      ...target(service.id),
      reason,
      details: { name: service.name, url: service.url },
    });
    return { service };
  });
}

export function listStreamingServices(executor: Executor) {
  return executor
    .select()
    .from(streamingServices)
    .orderBy(asc(streamingServices.createdAt), asc(streamingServices.name));
}

/** The services as the agent fetches them (the status report's answer). */
export async function streamingChecksForNode(executor: Executor): Promise<StreamingCheck[]> {
  const services = await listStreamingServices(executor);
  return services.slice(0, MAX_STREAMING_SERVICES).map((service) => ({
    id: service.id,
    url: service.url,
    expectStatus: service.expectStatus,
    ...(service.bodyContains ? { bodyContains: service.bodyContains } : {}),
    ...(service.bodyLacks ? { bodyLacks: service.bodyLacks } : {}),
  }));
}

/**
 * Stores a node's results, each the server's last for its service. A result for a service removed
 * meanwhile is dropped; its time is the node's, but never later than now (a node's clock may run ahead).
 */
export async function recordStreamingResults(
  executor: Executor,
  serverId: string,
  results: readonly StreamingResult[],
  now: Date,
): Promise<void> {
  if (results.length === 0) return;
  const known = new Set(
    (
      await executor
        .select({ id: streamingServices.id })
        .from(streamingServices)
        .where(
          inArray(
            streamingServices.id,
            results.map((result) => result.id),
          ),
        )
    ).map((row) => row.id),
  );
  for (const result of results) {
    if (!known.has(result.id)) continue;
    const checkedAt = new Date(Math.min(result.checkedAt * 1000, now.getTime()));
    const values = {
      ok: result.ok,
      status: result.status ?? null,
      reason: result.ok ? null : (result.reason ?? "refused"),
      checkedAt,
    };
    await executor
      .insert(streamingChecks)
      .values({ serverId, serviceId: result.id, ...values })
      .onConflictDoUpdate({ target: [streamingChecks.serverId, streamingChecks.serviceId], set: values });
  }
}

export interface ServiceResult {
  serviceId: string;
  name: string;
  url: string;
  required: boolean;
  /** Null until the server's agent reported a check of this service. */
  ok: boolean | null;
  status: number | null;
  reason: string | null;
  checkedAt: string | null;
}

/** Every server's result for every listed service (unchecked ones as null), by server id. */
export async function streamingResultsByServer(executor: Executor): Promise<Map<string, ServiceResult[]>> {
  const services = await listStreamingServices(executor);
  const rows = await executor.select().from(streamingChecks);
  const servers = await executor.select({ id: vpnServers.id }).from(vpnServers);
  const byKey = new Map(rows.map((row) => [`${row.serverId}:${row.serviceId}`, row]));
  return new Map(
    servers.map(({ id }) => [
      id,
      services.map((service) => {
        const row = byKey.get(`${id}:${service.id}`);
        return {
          serviceId: service.id,
          name: service.name,
          url: service.url,
          required: service.required,
          ok: row?.ok ?? null,
          status: row?.status ?? null,
          reason: row?.reason ?? null,
          checkedAt: row?.checkedAt.toISOString() ?? null,
        };
      }),
    ]),
  );
}

/** Required services whose last check through a server failed. */
export function failingRequiredChecks(executor: Executor) {
  return executor
    .select({
      serverId: streamingChecks.serverId,
      serverName: vpnServers.name,
      development: vpnServers.development,
      serviceId: streamingServices.id,
      serviceName: streamingServices.name,
      status: streamingChecks.status,
      reason: streamingChecks.reason,
      checkedAt: streamingChecks.checkedAt,
    })
    .from(streamingChecks)
    .innerJoin(streamingServices, eq(streamingServices.id, streamingChecks.serviceId))
    .innerJoin(vpnServers, eq(vpnServers.id, streamingChecks.serverId))
    .where(and(eq(streamingChecks.ok, false), eq(streamingServices.required, true)))
    .orderBy(asc(vpnServers.name), asc(streamingServices.name));
}

/** SQL: the server in `vpn_servers` fails a required check (placement's order, decision 133). */
export const failsRequiredCheck = sql`exists (
  select 1 from streaming_checks sc join streaming_services ss on ss.id = sc.service_id
  where sc.server_id = vpn_servers.id and not sc.ok and ss.required)`;

/** One listed service's last check through a buyer's server, as /check shows it: no URL, no reason. */
export interface BuyerStreamingResult {
  name: string;
  ok: boolean;
  checkedAt: string;
}

/**
 * What /check tells a buyer connected through `serverName` (decision 133): each listed service
 * that server's node has checked, ✓ or ✗ and when. Nothing about other servers, nor the URLs staff
 * check or why a check failed; services not checked yet through it are left out.
 */
export async function streamingResultsThrough(
  executor: Executor,
  serverName: string,
): Promise<BuyerStreamingResult[]> {
  const rows = await executor
    .select({
      name: streamingServices.name,
      ok: streamingChecks.ok,
      checkedAt: streamingChecks.checkedAt,
    })
    .from(streamingChecks)
    .innerJoin(streamingServices, eq(streamingServices.id, streamingChecks.serviceId))
    .innerJoin(vpnServers, eq(vpnServers.id, streamingChecks.serverId))
    .where(eq(vpnServers.name, serverName))
    .orderBy(asc(streamingServices.createdAt), asc(streamingServices.name));
  return rows.map((row) => ({ ...row, checkedAt: row.checkedAt.toISOString() }));
}
