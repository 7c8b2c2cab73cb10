-- Decision 131: what bench:scale's two-year shop read whole. Housekeeping's sent e-mails and the
-- dashboard's outbox backlog (by status), a subscription page's e-mails (by address, newest first)
-- and devices (all of a subscription's, revoked too), the dashboard's recent status changes, the
-- orders list filtered by status (newest first), the usable subscriptions counted, the console's
-- search by whole address, payment reference, Stripe customer and device address, and each
-- server's live devices by last handshake.
CREATE INDEX "outbox_messages_status_sent_at_idx" ON "outbox_messages" USING btree ("status","sent_at");
--> statement-breakpoint
CREATE INDEX "outbox_messages_to_address_idx" ON "outbox_messages" USING btree (lower("to_address"),"created_at");
--> statement-breakpoint
CREATE INDEX "devices_subscription_idx" ON "devices" USING btree ("subscription_id","slot");
--> statement-breakpoint
CREATE INDEX "subscription_events_at_idx" ON "subscription_events" USING btree ("at");
--> statement-breakpoint
CREATE INDEX "checkout_sessions_status_created_at_id_idx" ON "checkout_sessions" USING btree ("status","created_at","id");
--> statement-breakpoint
CREATE INDEX "subscriptions_status_expires_at_idx" ON "subscriptions" USING btree ("status","expires_at");
--> statement-breakpoint
CREATE INDEX "checkout_sessions_customer_email_idx" ON "checkout_sessions" USING btree (lower("customer_email"));
--> statement-breakpoint
CREATE INDEX "checkout_sessions_payment_reference_idx" ON "checkout_sessions" USING btree ("payment_reference");
--> statement-breakpoint
CREATE INDEX "subscriptions_stripe_customer_id_idx" ON "subscriptions" USING btree ("stripe_customer_id");
--> statement-breakpoint
CREATE INDEX "devices_ipv4_idx" ON "devices" USING btree ("ipv4");
--> statement-breakpoint
CREATE INDEX "devices_ipv6_idx" ON "devices" USING btree ("ipv6");
--> statement-breakpoint
CREATE INDEX "devices_server_handshake_idx" ON "devices" USING btree ("vpn_server_id","last_handshake_at") WHERE "revoked_at" is null;
--> statement-breakpoint
CREATE INDEX "devices_created_at_idx" ON "devices" USING btree ("created_at");
