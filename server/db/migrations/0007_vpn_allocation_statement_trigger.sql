-- Decision 056: batched fulfilment issues many devices in one multi-row INSERT. The per-row
-- trigger of 0006 then updated the server's row once per device, and each update of a row the
-- transaction has already updated walks the versions before it: O(n²) per batch. Inserted
-- devices are now counted once per statement from the transition table. Updates and deletes
-- keep the per-row trigger (a transition table cannot go with an UPDATE OF column list).
CREATE FUNCTION "vpn_devices_allocation_state_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE vpn_servers s
    SET live_devices = s.live_devices + added.live,
        next_address_index = greatest(s.next_address_index, added.highest + 1)
    FROM (
      SELECT vpn_server_id, count(*) AS live, max(address_index) AS highest
      FROM inserted_devices WHERE revoked_at IS NULL GROUP BY vpn_server_id
    ) added
    WHERE s.id = added.vpn_server_id;
  DELETE FROM vpn_free_addresses f
    USING inserted_devices d
    WHERE d.revoked_at IS NULL AND f.server_id = d.vpn_server_id AND f.address_index = d.address_index;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER "devices_allocation_state" ON "devices";
--> statement-breakpoint
CREATE TRIGGER "devices_allocation_state"
  AFTER DELETE OR UPDATE OF revoked_at, vpn_server_id, address_index ON "devices"
  FOR EACH ROW EXECUTE FUNCTION "vpn_devices_allocation_state"();
--> statement-breakpoint
CREATE TRIGGER "devices_allocation_state_inserted"
  AFTER INSERT ON "devices"
  REFERENCING NEW TABLE AS inserted_devices
  FOR EACH STATEMENT EXECUTE FUNCTION "vpn_devices_allocation_state_inserted"();
