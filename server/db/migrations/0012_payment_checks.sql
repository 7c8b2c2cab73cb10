CREATE TABLE "charge_reversals" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"payment_intent_id" text,
	"customer_id" text,
	"amount_cents" integer NOT NULL,
	"currency" text NOT NULL,
	"reason" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"applied_at" timestamp with time zone,
	"subscription_id" uuid
);
--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "paid_amount_cents" integer;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "paid_currency" text;--> statement-breakpoint
ALTER TABLE "charge_reversals" ADD CONSTRAINT "charge_reversals_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "charge_reversals_held_payment_intent_idx" ON "charge_reversals" USING btree ("payment_intent_id") WHERE "charge_reversals"."applied_at" is null;--> statement-breakpoint
CREATE INDEX "charge_reversals_held_customer_idx" ON "charge_reversals" USING btree ("customer_id") WHERE "charge_reversals"."applied_at" is null;