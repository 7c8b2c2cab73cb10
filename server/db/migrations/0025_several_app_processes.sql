CREATE TABLE "job_ticks" (
	"job" text PRIMARY KEY NOT NULL,
	"tick" bigint NOT NULL,
	"ran_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sealing_key_check" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sealing_key_check_one_row" CHECK ("id" = 1)
);
