-- Decision 077: the history of each subscription's status, period end and cancel-at-period-end,
-- written by one trigger, so every writer (fulfilment, webhooks, self-service, the expiry job,
-- staff actions, raw SQL) is recorded the same way. `at` is the row's updated_at: the writer's clock.
CREATE TABLE "subscription_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"subscription_id" uuid NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"cancel_at_period_end" boolean NOT NULL
);
--> statement-breakpoint
ALTER TABLE "subscription_events" ADD CONSTRAINT "subscription_events_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "subscription_events_subscription_idx" ON "subscription_events" USING btree ("subscription_id","id");
--> statement-breakpoint
INSERT INTO "subscription_events" ("subscription_id", "at", "status", "expires_at", "cancel_at_period_end")
SELECT "id", "updated_at", "status", "expires_at", "cancel_at_period_end" FROM "subscriptions" ORDER BY "created_at";
--> statement-breakpoint
CREATE FUNCTION "subscription_events_record"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT'
     OR NEW."status" IS DISTINCT FROM OLD."status"
     OR NEW."expires_at" IS DISTINCT FROM OLD."expires_at"
     OR NEW."cancel_at_period_end" IS DISTINCT FROM OLD."cancel_at_period_end" THEN
    INSERT INTO "subscription_events" ("subscription_id", "at", "status", "expires_at", "cancel_at_period_end")
    VALUES (NEW."id", NEW."updated_at", NEW."status", NEW."expires_at", NEW."cancel_at_period_end");
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "subscription_events_record"
AFTER INSERT OR UPDATE OF "status", "expires_at", "cancel_at_period_end" ON "subscriptions"
FOR EACH ROW EXECUTE FUNCTION "subscription_events_record"();
