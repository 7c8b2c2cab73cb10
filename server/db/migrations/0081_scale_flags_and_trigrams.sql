-- Decision 138: the waiting-buyers rule (dashboard, staff alerts, the waiting-buyers job,
-- /metrics) looks for paid orders without a subscription and usable subscriptions without slot 1.
-- On a two-year shop that was an anti-join of every paid order and of every usable subscription,
-- for the few (usually none) that are waiting; and the subscriptions list walked every order,
-- most of them never paid, to find the ones that became a subscription. Two flags, kept by triggers in the transaction
-- that changes the rows they describe (the app never writes them), and a partial index of the
-- rows each leaves as candidates (and one of the orders that have a subscription); the queries
-- still check each candidate against the tables.
ALTER TABLE "checkout_sessions" ADD COLUMN "has_subscription" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "has_slot_one" boolean DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE "checkout_sessions" c SET "has_subscription" = true
  WHERE EXISTS (SELECT 1 FROM "subscriptions" s WHERE s."checkout_session_id" = c."id");--> statement-breakpoint
UPDATE "subscriptions" s SET "has_slot_one" = true
  WHERE EXISTS (SELECT 1 FROM "devices" d WHERE d."subscription_id" = s."id" AND d."slot" = 1);--> statement-breakpoint
CREATE INDEX "checkout_sessions_without_subscription_idx" ON "checkout_sessions" USING btree ("created_at") WHERE "checkout_sessions"."status" = 'paid' and "checkout_sessions"."renews_subscription_id" is null and not "checkout_sessions"."has_subscription";--> statement-breakpoint
CREATE INDEX "checkout_sessions_with_subscription_created_at_id_idx" ON "checkout_sessions" USING btree ("created_at","id") WHERE "checkout_sessions"."has_subscription";--> statement-breakpoint
CREATE INDEX "subscriptions_without_slot_one_idx" ON "subscriptions" USING btree ("created_at") WHERE not "subscriptions"."has_slot_one";--> statement-breakpoint
-- Most sessions are paid and most have a subscription, but almost no paid one lacks it: without
-- the two columns' joint statistics the planner expects thousands of candidates and plans for them.
CREATE STATISTICS "checkout_sessions_status_subscription_stats" (mcv) ON "status", "has_subscription" FROM "checkout_sessions";--> statement-breakpoint
-- A subscription names its session (no foreign key: a session row may be purged or written after
-- it): the session's flag follows the subscriptions that name it.
CREATE FUNCTION checkout_sessions_has_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE checkout_sessions SET has_subscription = false
      WHERE id = OLD.checkout_session_id AND has_subscription
        AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE checkout_session_id = OLD.checkout_session_id);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE checkout_sessions SET has_subscription = true
      WHERE id = NEW.checkout_session_id AND NOT has_subscription;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER subscriptions_session_flag AFTER INSERT OR DELETE OR UPDATE OF checkout_session_id ON subscriptions
  FOR EACH ROW EXECUTE FUNCTION checkout_sessions_has_subscription();--> statement-breakpoint
-- A session written after its subscription (a restore, a test) starts with the flag it should have.
CREATE FUNCTION checkout_sessions_has_subscription_set() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.has_subscription := EXISTS (SELECT 1 FROM subscriptions WHERE checkout_session_id = NEW.id);
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER checkout_sessions_subscription_flag BEFORE INSERT OR UPDATE OF id, has_subscription ON checkout_sessions
  FOR EACH ROW EXECUTE FUNCTION checkout_sessions_has_subscription_set();--> statement-breakpoint
-- Devices belong to their subscription (a foreign key): its flag follows its slot-1 rows.
CREATE FUNCTION subscriptions_has_slot_one() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.slot = 1 THEN
    UPDATE subscriptions SET has_slot_one = false
      WHERE id = OLD.subscription_id AND has_slot_one
        AND NOT EXISTS (SELECT 1 FROM devices WHERE subscription_id = OLD.subscription_id AND slot = 1);
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.slot = 1 THEN
    UPDATE subscriptions SET has_slot_one = true WHERE id = NEW.subscription_id AND NOT has_slot_one;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER devices_slot_one_flag AFTER DELETE OR UPDATE OF slot, subscription_id ON devices
  FOR EACH ROW EXECUTE FUNCTION subscriptions_has_slot_one();--> statement-breakpoint
-- Inserts once per statement: a bulk insert (an import, a seed) updates each subscription once.
CREATE FUNCTION subscriptions_has_slot_one_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE subscriptions SET has_slot_one = true
    WHERE id IN (SELECT subscription_id FROM inserted_devices WHERE slot = 1) AND NOT has_slot_one;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER devices_slot_one_flag_inserted AFTER INSERT ON devices REFERENCING NEW TABLE AS inserted_devices
  FOR EACH STATEMENT EXECUTE FUNCTION subscriptions_has_slot_one_inserted();
--> statement-breakpoint
-- The console's "contains" search of names and addresses (`ilike '%…%'`) read both tables whole:
-- trigram indexes serve it. pg_trgm is a trusted extension (the migrating role needs CREATE on the
-- database, which its owner has); PGlite loads it when it opens a store (server/db/client.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "checkout_sessions_customer_name_trgm_idx" ON "checkout_sessions" USING gin ("customer_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "checkout_sessions_customer_email_trgm_idx" ON "checkout_sessions" USING gin ("customer_email" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "subscriptions_customer_email_trgm_idx" ON "subscriptions" USING gin ("customer_email" gin_trgm_ops);--> statement-breakpoint
-- The dashboard's sums of the last 30 days (charges per plan and day; credits, refunds, disputes)
-- read from this index alone instead of each ledger row.
CREATE INDEX "ledger_entries_occurred_at_figures_idx" ON "ledger_entries" USING btree ("occurred_at","kind","plan_id","amount_cents");
