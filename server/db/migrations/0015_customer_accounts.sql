-- Decision 067: customers sign in by e-mailed link through a second better-auth instance whose
-- tables are these, apart from the staff ones.
CREATE TABLE "customer_user" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"email_verified" boolean DEFAULT false NOT NULL,
	"image" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "customer_user_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE TABLE "customer_session" (
	"id" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"token" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ip_address" text,
	"user_agent" text,
	"user_id" text NOT NULL,
	CONSTRAINT "customer_session_token_unique" UNIQUE("token")
);
--> statement-breakpoint
CREATE TABLE "customer_account" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"provider_id" text NOT NULL,
	"user_id" text NOT NULL,
	"access_token" text,
	"refresh_token" text,
	"id_token" text,
	"access_token_expires_at" timestamp with time zone,
	"refresh_token_expires_at" timestamp with time zone,
	"scope" text,
	"password" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "customer_verification" (
	"id" text PRIMARY KEY NOT NULL,
	"identifier" text NOT NULL,
	"value" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "customer_session" ADD CONSTRAINT "customer_session_user_id_customer_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."customer_user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_account" ADD CONSTRAINT "customer_account_user_id_customer_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."customer_user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "customer_session_user_id_idx" ON "customer_session" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "customer_account_user_id_idx" ON "customer_account" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "customer_verification_identifier_idx" ON "customer_verification" USING btree ("identifier");--> statement-breakpoint
-- A signed-in customer's subscriptions are those carrying their address, whatever its case.
CREATE INDEX "subscriptions_customer_email_idx" ON "subscriptions" USING btree (lower("customer_email"));
--> statement-breakpoint
-- A revoked device frees its slot for a new device (the account page's revoke, decision 067).
ALTER TABLE "devices" DROP CONSTRAINT "devices_subscription_slot_unique";--> statement-breakpoint
CREATE UNIQUE INDEX "devices_subscription_slot_live_unique" ON "devices" USING btree ("subscription_id","slot") WHERE "devices"."revoked_at" is null;
