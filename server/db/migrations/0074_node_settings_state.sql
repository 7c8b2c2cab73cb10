-- Node settings are desired state (decision 129): the settings version the control plane wants,
-- since when, and what the node's agent last reported it applied.
ALTER TABLE "vpn_servers" ADD COLUMN "settings_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD COLUMN "settings_changed_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD COLUMN "applied_settings_version" integer;--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD COLUMN "applied_settings_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD COLUMN "settings_apply_error" text;--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD COLUMN "applied_client_mtu" integer;--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD CONSTRAINT "vpn_servers_applied_client_mtu_check" CHECK ("applied_client_mtu" between 1280 and 1420);--> statement-breakpoint
-- A node that ran setup before this upgrade carries the MTU its setup found, at best: configs keep
-- the MTU they had until its (new) agent reports the one it applied.
UPDATE "vpn_servers" SET "applied_client_mtu" = "client_mtu" WHERE "last_seen_at" IS NOT NULL;
