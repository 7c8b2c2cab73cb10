CREATE TABLE "vpn_peer_changes" (
	"server_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"public_key" text NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "vpn_peer_changes_server_id_version_public_key_pk" PRIMARY KEY("server_id","version","public_key")
);
--> statement-breakpoint
CREATE TABLE "vpn_peer_versions" (
	"server_id" uuid PRIMARY KEY NOT NULL,
	"version" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "vpn_peer_changes" ADD CONSTRAINT "vpn_peer_changes_server_id_vpn_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."vpn_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vpn_peer_versions" ADD CONSTRAINT "vpn_peer_versions_server_id_vpn_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."vpn_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Decision 046: every write that may change the peers a VPN server must carry (a device issued,
-- revoked, re-keyed, moved or deleted; a subscription whose status or expiry changed) logs the
-- public keys it touched, whoever makes it. The control plane answers a node with the current
-- state of those keys only. One call bumps the server's version once; the upsert takes the row
-- lock of the server's version row until commit, so versions follow commit order. NOTIFY
-- (delivered at commit, never on rollback) wakes the node's held poll in any app process.
CREATE FUNCTION "vpn_log_peer_changes"(server uuid, keys text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  next_version integer;
BEGIN
  IF keys IS NULL OR cardinality(keys) = 0 THEN
    RETURN;
  END IF;
  INSERT INTO vpn_peer_versions AS v (server_id, version) VALUES (server, 1)
    ON CONFLICT (server_id) DO UPDATE SET version = v.version + 1
    RETURNING v.version INTO next_version;
  INSERT INTO vpn_peer_changes (server_id, version, public_key)
    SELECT server, next_version, k FROM unnest(keys) AS t(k)
    ON CONFLICT DO NOTHING;
  PERFORM pg_notify('vpn_peer_changes', server::text);
END
$$;
--> statement-breakpoint
-- A live device leaving (revoked, deleted, moved, re-keyed) logs its old key on its old server;
-- a device that is live afterwards logs its key on its server. Whether its subscription is
-- usable is decided when the change is read, so logging too much is harmless.
CREATE FUNCTION "vpn_devices_peer_changes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.revoked_at IS NULL THEN
    PERFORM vpn_log_peer_changes(OLD.vpn_server_id, ARRAY[OLD.public_key]);
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.revoked_at IS NULL AND (
    OLD.revoked_at IS NOT NULL OR NEW.vpn_server_id <> OLD.vpn_server_id OR NEW.public_key <> OLD.public_key
  ) THEN
    PERFORM vpn_log_peer_changes(NEW.vpn_server_id, ARRAY[NEW.public_key]);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "devices_peer_changes"
  AFTER UPDATE OF revoked_at, vpn_server_id, public_key, preshared_key_sealed, ipv4, ipv6, subscription_id
  ON "devices"
  FOR EACH ROW
  WHEN (
    OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.vpn_server_id <> NEW.vpn_server_id
    OR OLD.public_key <> NEW.public_key OR OLD.preshared_key_sealed <> NEW.preshared_key_sealed
    OR OLD.ipv4 <> NEW.ipv4 OR OLD.ipv6 <> NEW.ipv6 OR OLD.subscription_id <> NEW.subscription_id
  )
  EXECUTE FUNCTION "vpn_devices_peer_changes"();
--> statement-breakpoint
CREATE TRIGGER "devices_peer_changes_deleted"
  AFTER DELETE ON "devices"
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL)
  EXECUTE FUNCTION "vpn_devices_peer_changes"();
--> statement-breakpoint
-- Inserted devices: one version per server per statement (a multi-row insert bumps once).
CREATE FUNCTION "vpn_devices_peer_changes_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM vpn_log_peer_changes(vpn_server_id, array_agg(public_key))
    FROM inserted_devices WHERE revoked_at IS NULL
    GROUP BY vpn_server_id ORDER BY vpn_server_id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "devices_peer_changes_inserted"
  AFTER INSERT ON "devices"
  REFERENCING NEW TABLE AS inserted_devices
  FOR EACH STATEMENT EXECUTE FUNCTION "vpn_devices_peer_changes_inserted"();
--> statement-breakpoint
-- A subscription whose status or expiry changed may start or stop making its live devices
-- usable: log them all (servers in id order, so concurrent writers lock in the same order).
CREATE FUNCTION "vpn_subscriptions_peer_changes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM vpn_log_peer_changes(d.vpn_server_id, array_agg(d.public_key))
    FROM new_subscriptions n
    JOIN old_subscriptions o ON o.id = n.id
    JOIN devices d ON d.subscription_id = n.id AND d.revoked_at IS NULL
    WHERE n.status IS DISTINCT FROM o.status OR n.expires_at IS DISTINCT FROM o.expires_at
    GROUP BY d.vpn_server_id ORDER BY d.vpn_server_id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "subscriptions_peer_changes"
  AFTER UPDATE ON "subscriptions"
  REFERENCING OLD TABLE AS old_subscriptions NEW TABLE AS new_subscriptions
  FOR EACH STATEMENT EXECUTE FUNCTION "vpn_subscriptions_peer_changes"();
