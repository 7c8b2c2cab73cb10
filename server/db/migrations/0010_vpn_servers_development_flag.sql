ALTER TABLE "vpn_servers" ADD COLUMN "development" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
-- The placeholder server earlier versions created on first start.
UPDATE "vpn_servers" SET "development" = true WHERE "name" = 'ng-lagos-dev';
