ALTER TABLE "checkout_sessions" DROP CONSTRAINT "checkout_sessions_subscription_id_subscriptions_id_fk";
--> statement-breakpoint
ALTER TABLE "checkout_sessions" DROP COLUMN "subscription_id";