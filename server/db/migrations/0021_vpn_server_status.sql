-- Decision 078. A VPN server is active (takes new devices), draining (takes none; its devices
-- keep working) or disabled (takes none, and its node is told to carry no peers). `active =
-- false` meant draining (decision 064), so that is what it becomes. The least-loaded index
-- follows the one condition allocation filters on.
ALTER TABLE "vpn_servers" ADD COLUMN "status" text DEFAULT 'active' NOT NULL;
--> statement-breakpoint
UPDATE "vpn_servers" SET "status" = 'draining' WHERE NOT "active";
--> statement-breakpoint
DROP INDEX "vpn_servers_least_loaded_idx";
--> statement-breakpoint
ALTER TABLE "vpn_servers" DROP COLUMN "active";
--> statement-breakpoint
ALTER TABLE "vpn_servers" ADD CONSTRAINT "vpn_servers_status_check" CHECK ("vpn_servers"."status" in ('active', 'draining', 'disabled'));
--> statement-breakpoint
CREATE INDEX "vpn_servers_least_loaded_idx" ON "vpn_servers" USING btree ("live_devices","created_at") WHERE "vpn_servers"."status" = 'active' and "vpn_servers"."public_key" is not null;
--> statement-breakpoint
-- How many peers the node's interface held at its last report, beside the applied version.
ALTER TABLE "vpn_servers" ADD COLUMN "applied_peer_count" integer;
--> statement-breakpoint
-- Disabling a server empties the peer set its node must carry, enabling it again restores it:
-- every live key of the server is logged as changed (decision 046's feed), whoever makes the change.
CREATE FUNCTION "vpn_servers_status_peer_changes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM vpn_log_peer_changes(NEW.id, array(
    SELECT public_key FROM devices WHERE vpn_server_id = NEW.id AND revoked_at IS NULL));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "vpn_servers_status_peer_changes"
  AFTER UPDATE OF status ON "vpn_servers"
  FOR EACH ROW
  WHEN ((OLD.status = 'disabled') <> (NEW.status = 'disabled'))
  EXECUTE FUNCTION "vpn_servers_status_peer_changes"();
