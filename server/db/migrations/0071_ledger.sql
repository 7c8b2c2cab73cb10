CREATE TABLE "ledger_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"key" text NOT NULL,
	"kind" text NOT NULL,
	"purpose" text,
	"order_number" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text NOT NULL,
	"subscription_id" uuid,
	"checkout_session_id" text,
	"plan_change_id" uuid,
	"plan_id" text,
	"customer_email" text,
	"provider" text NOT NULL,
	"provider_reference" text,
	"occurred_at" timestamp with time zone NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_entries_amount_check" CHECK ("amount_cents" >= 0),
	CONSTRAINT "ledger_entries_kind_check" CHECK ("kind" in ('charge', 'credit', 'refund', 'dispute', 'dispute_won', 'dispute_lost'))
);
--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_key_unique" ON "ledger_entries" USING btree ("key");
--> statement-breakpoint
CREATE INDEX "ledger_entries_subscription_idx" ON "ledger_entries" USING btree ("subscription_id","occurred_at");
--> statement-breakpoint
CREATE INDEX "ledger_entries_order_number_idx" ON "ledger_entries" USING btree ("order_number");
--> statement-breakpoint
CREATE INDEX "ledger_entries_occurred_at_id_idx" ON "ledger_entries" USING btree ("occurred_at","id");
--> statement-breakpoint
CREATE INDEX "ledger_entries_checkout_session_idx" ON "ledger_entries" USING btree ("checkout_session_id");
--> statement-breakpoint
-- The money recorded before the ledger, written into it once: each paid checkout (a first
-- purchase, or a pass's own checkout), each applied refund or dispute, and each plan change the
-- built-in checkout charged or credited at once. Order numbers as billing/ledger.ts makes them.
CREATE FUNCTION pg_temp.order_number(id uuid) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  select upper(substr(replace(id::text, '-', ''), 1, 4) || '-' || substr(replace(id::text, '-', ''), 5, 4) || '-' || substr(replace(id::text, '-', ''), 9, 4))
$$;
--> statement-breakpoint
INSERT INTO "ledger_entries" ("key", "kind", "purpose", "order_number", "amount_cents", "currency", "subscription_id", "checkout_session_id", "plan_change_id", "plan_id", "customer_email", "provider", "provider_reference", "occurred_at")
SELECT 'charge:checkout:' || s.id, 'charge', 'purchase', pg_temp.order_number(sub.id), coalesce(s.paid_amount_cents, s.amount_cents), lower(coalesce(s.paid_currency, s.currency)), sub.id, s.id, NULL, s.plan_id, coalesce(sub.customer_email, s.customer_email), s.provider, s.payment_reference, coalesce(s.paid_at, sub.created_at)
FROM "checkout_sessions" s JOIN "subscriptions" sub ON sub.checkout_session_id = s.id
WHERE s.status = 'paid';
--> statement-breakpoint
INSERT INTO "ledger_entries" ("key", "kind", "purpose", "order_number", "amount_cents", "currency", "subscription_id", "checkout_session_id", "plan_change_id", "plan_id", "customer_email", "provider", "provider_reference", "occurred_at")
SELECT 'charge:checkout:' || s.id, 'charge', CASE WHEN c.kind = 'pass-extend' THEN 'pass_extension' ELSE 'pass_to_subscription' END, pg_temp.order_number(c.id), coalesce(s.paid_amount_cents, s.amount_cents), lower(coalesce(s.paid_currency, s.currency)), c.subscription_id, s.id, c.id, s.plan_id, s.customer_email, s.provider, s.payment_reference, coalesce(s.paid_at, c.applied_at, c.requested_at)
FROM "checkout_sessions" s JOIN "plan_changes" c ON c.checkout_session_id = s.id
WHERE s.status = 'paid'
ON CONFLICT ("key") DO NOTHING;
--> statement-breakpoint
INSERT INTO "ledger_entries" ("key", "kind", "purpose", "order_number", "amount_cents", "currency", "subscription_id", "checkout_session_id", "plan_change_id", "plan_id", "customer_email", "provider", "provider_reference", "occurred_at")
SELECT 'plan-change:' || c.id, CASE WHEN c.amount_cents > 0 THEN 'charge' ELSE 'credit' END, 'plan_change', pg_temp.order_number(c.id), abs(c.amount_cents), lower(c.currency), c.subscription_id, NULL, c.id, c.to_plan_id, sub.customer_email, 'test', NULL, coalesce(c.applied_at, c.requested_at)
FROM "plan_changes" c JOIN "subscriptions" sub ON sub.id = c.subscription_id JOIN "checkout_sessions" s ON s.id = sub.checkout_session_id
WHERE c.status = 'applied' AND c.checkout_session_id IS NULL AND c.amount_cents <> 0 AND s.provider = 'test';
--> statement-breakpoint
INSERT INTO "ledger_entries" ("key", "kind", "purpose", "order_number", "amount_cents", "currency", "subscription_id", "checkout_session_id", "plan_change_id", "plan_id", "customer_email", "provider", "provider_reference", "occurred_at")
SELECT CASE WHEN r.kind = 'refund' THEN 'refund:' || r.id || ':' || r.amount_cents ELSE 'dispute:' || r.id END, r.kind, NULL, pg_temp.order_number(sub.id), r.amount_cents, lower(r.currency), sub.id, s.id, NULL, sub.plan_id, sub.customer_email, s.provider, r.id, r.applied_at
FROM "charge_reversals" r JOIN "subscriptions" sub ON sub.id = r.subscription_id JOIN "checkout_sessions" s ON s.id = sub.checkout_session_id
WHERE r.applied_at IS NOT NULL
ON CONFLICT ("key") DO NOTHING;
