-- Decision 064. A revoked device keeps its row (its slot stays used, its activation is
-- history) when its VPN server is removed: the server reference becomes null. A live device
-- always has a server; removing a server that still holds one fails on the check.
ALTER TABLE "devices" DROP CONSTRAINT "devices_vpn_server_id_vpn_servers_id_fk";
--> statement-breakpoint
ALTER TABLE "devices" ALTER COLUMN "vpn_server_id" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_vpn_server_id_vpn_servers_id_fk" FOREIGN KEY ("vpn_server_id") REFERENCES "public"."vpn_servers"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_live_on_a_server" CHECK ("devices"."revoked_at" is not null or "devices"."vpn_server_id" is not null);
--> statement-breakpoint
-- Activation (docs/product.md §3.3) by page download, QR shown, or the first WireGuard handshake.
ALTER TABLE "devices" ADD CONSTRAINT "devices_activated_via_check" CHECK ("devices"."activated_via" in ('download', 'qr', 'handshake'));
