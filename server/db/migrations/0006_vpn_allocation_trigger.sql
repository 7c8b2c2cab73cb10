-- Decision 044: every change to a live device keeps its server's allocation state in step,
-- whoever makes it (issueDevice, revocation, expiry, a cascade delete, an operator's SQL).
-- A device leaving the live set frees its offset; one entering it takes its offset out of the
-- free list and raises the high-water mark past it.
CREATE FUNCTION "vpn_devices_allocation_state"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.revoked_at IS NULL AND (
    TG_OP = 'DELETE' OR NEW.revoked_at IS NOT NULL
    OR NEW.vpn_server_id <> OLD.vpn_server_id OR NEW.address_index <> OLD.address_index
  ) THEN
    UPDATE vpn_servers SET live_devices = live_devices - 1 WHERE id = OLD.vpn_server_id;
    INSERT INTO vpn_free_addresses (server_id, address_index)
      VALUES (OLD.vpn_server_id, OLD.address_index) ON CONFLICT DO NOTHING;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.revoked_at IS NULL AND (
    TG_OP = 'INSERT' OR OLD.revoked_at IS NOT NULL
    OR NEW.vpn_server_id <> OLD.vpn_server_id OR NEW.address_index <> OLD.address_index
  ) THEN
    UPDATE vpn_servers
      SET live_devices = live_devices + 1,
          next_address_index = greatest(next_address_index, NEW.address_index + 1)
      WHERE id = NEW.vpn_server_id;
    DELETE FROM vpn_free_addresses
      WHERE server_id = NEW.vpn_server_id AND address_index = NEW.address_index;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "devices_allocation_state"
  AFTER INSERT OR DELETE OR UPDATE OF revoked_at, vpn_server_id, address_index ON "devices"
  FOR EACH ROW EXECUTE FUNCTION "vpn_devices_allocation_state"();
--> statement-breakpoint
-- Backfill: counters and high-water marks from the live devices, and every offset below the
-- mark that no live device holds goes to the free list.
UPDATE "vpn_servers" s SET
  live_devices = (SELECT count(*) FROM devices d WHERE d.vpn_server_id = s.id AND d.revoked_at IS NULL),
  next_address_index = greatest(2, coalesce(
    (SELECT max(d.address_index) + 1 FROM devices d WHERE d.vpn_server_id = s.id AND d.revoked_at IS NULL), 2));
--> statement-breakpoint
INSERT INTO "vpn_free_addresses" (server_id, address_index)
  SELECT s.id, g.offset_value
  FROM vpn_servers s, generate_series(2, s.next_address_index - 1) AS g(offset_value)
  WHERE NOT EXISTS (
    SELECT 1 FROM devices d
    WHERE d.vpn_server_id = s.id AND d.revoked_at IS NULL AND d.address_index = g.offset_value
  );
