-- Decision 136: the audit log also records what a customer started themselves (a refund under the
-- 7-day guarantee). `actor` says who acted; staff_user_id / staff_email then hold the customer's
-- sign-in id and address. Every earlier entry was a staff member's.
ALTER TABLE "staff_audit_log" ADD COLUMN "actor" text DEFAULT 'staff' NOT NULL;
--> statement-breakpoint
ALTER TABLE "staff_audit_log" ADD CONSTRAINT "staff_audit_log_actor_check" CHECK ("staff_audit_log"."actor" in ('staff', 'customer'));
