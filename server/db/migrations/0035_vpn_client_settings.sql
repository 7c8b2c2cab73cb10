-- Decision 090 (issue 22): what a server's client configs carry besides keys and addresses.
-- `client_mtu`: the `MTU =` line (1280 fits every path IPv6 allows); new servers take VPN_CLIENT_MTU.
ALTER TABLE "vpn_servers" ADD COLUMN "client_mtu" integer DEFAULT 1280 NOT NULL;
--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD CONSTRAINT "vpn_servers_client_mtu_check" CHECK ("vpn_servers"."client_mtu" between 1280 and 1420);
--> statement-breakpoint
-- Extra UDP ports the node accepts WireGuard on (its setup redirects them to the listen port):
-- at most 4, each a port, none the endpoint's own. A server already listening on 443 gets none.
ALTER TABLE "vpn_servers" ADD COLUMN "alternate_ports" integer[] DEFAULT '{443}'::integer[] NOT NULL;
--> statement-breakpoint
UPDATE "vpn_servers" SET "alternate_ports" = '{}'::integer[] WHERE "endpoint" ~ ':443$';
--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD CONSTRAINT "vpn_servers_alternate_ports_check" CHECK (
  cardinality("vpn_servers"."alternate_ports") <= 4
  and coalesce(array_ndims("vpn_servers"."alternate_ports"), 1) = 1
  and array_position("vpn_servers"."alternate_ports", null) is null
  and 1 <= all("vpn_servers"."alternate_ports") and 65535 >= all("vpn_servers"."alternate_ports")
  and not (substring("vpn_servers"."endpoint" from ':([0-9]+)$')::integer = any("vpn_servers"."alternate_ports")));
--> statement-breakpoint
-- Configs name the node's own resolver (its tunnel addresses) unless the operator opted out, in
-- which case the `dns` column (VPN_DNS) stays. Servers that exist now have no resolver on their
-- node until its setup runs again: they keep their `dns` until `set-dns SERVER node`.
ALTER TABLE "vpn_servers" ADD COLUMN "node_resolver" boolean DEFAULT true NOT NULL;
--> statement-breakpoint
UPDATE "vpn_servers" SET "node_resolver" = false;
--> statement-breakpoint
-- The last change of what a config of this server says (MTU, DNS, endpoint, a port taken away,
-- the node's key). A device whose config was handed out before it is told to download it again.
-- Every config handed out so far lacks the MTU line: all of them are out of date.
ALTER TABLE "vpn_servers" ADD COLUMN "client_config_changed_at" timestamp with time zone DEFAULT now() NOT NULL;
--> statement-breakpoint
-- The change whose re-download notices have all been queued (null: none yet).
ALTER TABLE "vpn_servers" ADD COLUMN "config_notices_queued_for" timestamp with time zone;
--> statement-breakpoint
-- When the device's config was last handed out (downloaded, its QR fetched, or e-mailed).
ALTER TABLE "devices" ADD COLUMN "config_issued_at" timestamp with time zone;
--> statement-breakpoint
UPDATE "devices" SET "config_issued_at" = "created_at";
--> statement-breakpoint
ALTER TABLE "devices" ALTER COLUMN "config_issued_at" SET DEFAULT now();
--> statement-breakpoint
ALTER TABLE "devices" ALTER COLUMN "config_issued_at" SET NOT NULL;
--> statement-breakpoint
-- When its owner was last e-mailed that its config is out of date.
ALTER TABLE "devices" ADD COLUMN "config_notice_at" timestamp with time zone;
