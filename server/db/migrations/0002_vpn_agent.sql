ALTER TABLE "vpn_servers" ALTER COLUMN "public_key" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "last_handshake_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD COLUMN "applied_peer_version" text;--> statement-breakpoint
CREATE INDEX "devices_server_live_idx" ON "devices" USING btree ("vpn_server_id") WHERE "devices"."revoked_at" is null;