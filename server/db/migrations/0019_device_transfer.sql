-- Decision 073. The data a device moved in its subscription's current period, from the
-- WireGuard transfer counters its node agent reports: the sums for the period that began at
-- transfer_period_start, and the last raw counters (and the server they were read on), so each
-- report adds only its difference and a counter that went down (a reset) counts from zero.
ALTER TABLE "devices" ADD COLUMN "transfer_period_start" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "transfer_rx_bytes" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "transfer_tx_bytes" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "transfer_counters_server_id" uuid;
--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "transfer_counters_rx" bigint;
--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "transfer_counters_tx" bigint;
