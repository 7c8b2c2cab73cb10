// The fields of each Stripe event the webhook acts on, as it reads them (issue 25). A signed
// event whose object lacks one, or holds one of another type, is acknowledged and logged, never
// half-applied and never a 500: Stripe would only deliver the same bytes again.
import { z, type ZodType } from "zod";

const id = z.string().min(1).max(255);
/** A Stripe reference: an id, or the object itself when expanded. */
const ref = z
  .union([id, z.looseObject({ id })])
  .nullable()
  .optional();
const email = z.string().max(320).nullable().optional();
const amount = z.number().int().min(0).max(1e12);
const currency = z.string().regex(/^[a-z]{3}$/);
const unixTime = z.number().int().min(0).max(4_102_444_800);
const optionalObject = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape).nullable().optional();

const checkoutSession = z.looseObject({
  id,
  payment_status: z.string().max(64),
  customer_details: optionalObject({ email }),
  customer_email: email,
  customer: ref,
  subscription: ref,
  payment_intent: ref,
  amount_total: amount.nullable().optional(),
  currency: currency.nullable().optional(),
});

const invoice = z.looseObject({
  lines: z.looseObject({
    data: z.array(z.looseObject({ period: optionalObject({ end: unixTime.nullable().optional() }) })),
  }),
  parent: optionalObject({ subscription_details: optionalObject({ subscription: ref }) }),
  subscription: ref,
  // The payment that paid it: on the invoice (older API versions), or in its payments when expanded.
  payment_intent: ref,
  payments: optionalObject({
    data: z.array(z.looseObject({ payment: optionalObject({ payment_intent: ref }) })),
  }),
});

const subscription = z.looseObject({
  id,
  status: z.string().max(64),
  cancel_at_period_end: z.boolean().default(false),
  cancel_at: unixTime.nullable().default(null),
  metadata: z.record(z.string().max(500), z.string().max(500)).nullable().optional(),
  items: z.looseObject({
    data: z.array(z.looseObject({ current_period_end: unixTime.nullable().optional() })),
  }),
});

const charge = z.looseObject({
  id,
  refunded: z.boolean(),
  payment_intent: ref,
  customer: ref,
  amount_refunded: amount,
  currency,
});

const dispute = z.looseObject({
  id,
  charge: z.union([
    id,
    z.looseObject({
      id,
      customer: ref,
      billing_details: optionalObject({ email }),
      receipt_email: email,
    }),
  ]),
  payment_intent: ref,
  amount,
  currency,
  reason: z.string().max(100).nullable().optional(),
  evidence_details: optionalObject({ due_by: unixTime.nullable().optional() }),
  status: z.string().max(40).optional(),
});

/** The event types the webhook applies, and the shape of each one's `data.object`. */
const EVENT_OBJECTS: Record<string, ZodType> = {
  "checkout.session.completed": checkoutSession,
  "checkout.session.async_payment_succeeded": checkoutSession,
  "invoice.paid": invoice,
  "invoice.payment_failed": invoice,
  "customer.subscription.updated": subscription,
  "customer.subscription.deleted": subscription,
  "charge.refunded": charge,
  "charge.dispute.created": dispute,
  "charge.dispute.closed": dispute,
};

const envelope = z.looseObject({
  id,
  type: z.string().min(1).max(100),
  data: z.looseObject({ object: z.unknown() }),
});

export type EventShape<Event> = { ok: true; event: Event } | { ok: false; problem: string };

/**
 * The event with its object as the webhook reads it (defaults filled in), or what is wrong with it:
 * the path and rule of the first problem, never a value.
 */
export function checkEventShape<Event>(event: Event): EventShape<Event> {
  const outer = envelope.safeParse(event);
  if (!outer.success) return { ok: false, problem: problemOf(outer.error) };
  const schema = EVENT_OBJECTS[outer.data.type];
  if (!schema) return { ok: true, event };
  const object = schema.safeParse(outer.data.data.object);
  if (!object.success) return { ok: false, problem: `data.object.${problemOf(object.error)}` };
  return { ok: true, event: { ...outer.data, data: { ...outer.data.data, object: object.data } } as Event };
}

function problemOf(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.join(".") || "(root)"}: ${issue.code}`;
}
