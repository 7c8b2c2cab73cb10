-- Decision 091: the per-visit names /check makes the browser resolve, as a node's resolver
-- reported them (`dnsChecks` of POST /api/nodes/status). Only the random name, the server and
-- the time: no address, nothing else of the visitor. Housekeeping removes them after 10 minutes.
CREATE TABLE "dns_checks" (
	"nonce" text PRIMARY KEY NOT NULL,
	"server_id" uuid NOT NULL,
	"seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dns_checks" ADD CONSTRAINT "dns_checks_server_id_vpn_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."vpn_servers"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "dns_checks_seen_at_idx" ON "dns_checks" USING btree ("seen_at");
