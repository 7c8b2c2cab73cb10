CREATE TABLE "vpn_free_addresses" (
	"server_id" uuid NOT NULL,
	"address_index" integer NOT NULL,
	CONSTRAINT "vpn_free_addresses_server_id_address_index_pk" PRIMARY KEY("server_id","address_index")
);
--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD COLUMN "live_devices" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD COLUMN "next_address_index" integer DEFAULT 2 NOT NULL;--> statement-breakpoint
ALTER TABLE "vpn_free_addresses" ADD CONSTRAINT "vpn_free_addresses_server_id_vpn_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."vpn_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "vpn_servers_least_loaded_idx" ON "vpn_servers" USING btree ("live_devices","created_at") WHERE "vpn_servers"."active" and "vpn_servers"."public_key" is not null;