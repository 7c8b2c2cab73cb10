-- Streaming checks from every exit (decision 133): the services staff list, and each server's last result;
-- and the ports and resolver choice a node last reported applied, which configs then carry.
CREATE TABLE "streaming_checks" (
	"server_id" uuid NOT NULL,
	"service_id" uuid NOT NULL,
	"ok" boolean NOT NULL,
	"status" integer,
	"reason" text,
	"checked_at" timestamp with time zone NOT NULL,
	CONSTRAINT "streaming_checks_server_id_service_id_pk" PRIMARY KEY("server_id","service_id")
);
--> statement-breakpoint
CREATE TABLE "streaming_services" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	"expect_status" integer DEFAULT 200 NOT NULL,
	"body_contains" text,
	"body_lacks" text,
	"required" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "streaming_services_name_unique" UNIQUE("name"),
	CONSTRAINT "streaming_services_expect_status_check" CHECK ("streaming_services"."expect_status" between 100 and 599)
);
--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD COLUMN "applied_alternate_ports" integer[];--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD COLUMN "applied_node_resolver" boolean;--> statement-breakpoint
ALTER TABLE "streaming_checks" ADD CONSTRAINT "streaming_checks_server_id_vpn_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."vpn_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "streaming_checks" ADD CONSTRAINT "streaming_checks_service_id_streaming_services_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."streaming_services"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "streaming_checks_service_idx" ON "streaming_checks" USING btree ("service_id");--> statement-breakpoint
-- A node that has reported before this upgrade carries what configs already offered.
UPDATE "vpn_servers" SET "applied_alternate_ports" = "alternate_ports", "applied_node_resolver" = "node_resolver" WHERE "last_seen_at" IS NOT NULL;
