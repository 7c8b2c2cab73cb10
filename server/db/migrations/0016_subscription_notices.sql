CREATE TABLE "subscription_notices" (
	"subscription_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"period_ends_at" timestamp with time zone NOT NULL,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscription_notices_subscription_id_kind_period_ends_at_pk" PRIMARY KEY("subscription_id","kind","period_ends_at")
);
--> statement-breakpoint
ALTER TABLE "subscription_notices" ADD CONSTRAINT "subscription_notices_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;
