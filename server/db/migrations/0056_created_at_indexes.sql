CREATE INDEX "checkout_sessions_created_at_id_idx" ON "checkout_sessions" USING btree ("created_at","id");
--> statement-breakpoint
CREATE INDEX "subscriptions_created_at_id_idx" ON "subscriptions" USING btree ("created_at","id");
