CREATE TABLE "plan_changes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"subscription_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"from_plan_id" text NOT NULL,
	"to_plan_id" text NOT NULL,
	"keep_device_ids" jsonb,
	"amount_cents" integer NOT NULL,
	"currency" text DEFAULT 'usd' NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"checkout_session_id" text,
	"staff_user_id" text,
	"requested_at" timestamp with time zone NOT NULL,
	"applied_at" timestamp with time zone,
	CONSTRAINT "plan_changes_kind_check" CHECK ("kind" in ('upgrade', 'downgrade', 'switch', 'pass-extend', 'pass-to-subscription')),
	CONSTRAINT "plan_changes_status_check" CHECK ("status" in ('pending', 'applied', 'superseded'))
);
--> statement-breakpoint
ALTER TABLE "plan_changes" ADD CONSTRAINT "plan_changes_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "plan_changes_checkout_session_unique" ON "plan_changes" USING btree ("checkout_session_id");
--> statement-breakpoint
CREATE INDEX "plan_changes_subscription_idx" ON "plan_changes" USING btree ("subscription_id","requested_at");
--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "renews_subscription_id" uuid;
--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_renews_subscription_id_subscriptions_id_fk" FOREIGN KEY ("renews_subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE set null ON UPDATE no action;
