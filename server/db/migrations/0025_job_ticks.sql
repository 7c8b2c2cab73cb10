CREATE TABLE "job_ticks" (
	"job" text PRIMARY KEY NOT NULL,
	"tick" bigint NOT NULL,
	"ran_at" timestamp with time zone DEFAULT now() NOT NULL
);
