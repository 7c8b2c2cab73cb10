CREATE TABLE "reconciliation_findings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"key" text NOT NULL,
	"kind" text NOT NULL,
	"stripe_id" text,
	"order_number" text,
	"ledger_cents" integer,
	"ledger_currency" text,
	"stripe_cents" integer,
	"stripe_currency" text,
	"detail" text NOT NULL,
	"fix" text NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "reconciliation_findings_open_key_unique" ON "reconciliation_findings" USING btree ("key") WHERE "reconciliation_findings"."resolved_at" is null;
--> statement-breakpoint
CREATE TABLE "reconciliation_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"ran_at" timestamp with time zone NOT NULL,
	"since" timestamp with time zone NOT NULL,
	"stripe_objects" integer NOT NULL,
	"ledger_rows" integer NOT NULL,
	"open_findings" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "reconciliation_runs_ran_at_idx" ON "reconciliation_runs" USING btree ("ran_at");
