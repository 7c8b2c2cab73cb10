CREATE INDEX "staff_audit_log_at_id_idx" ON "staff_audit_log" USING btree ("at","id");
--> statement-breakpoint
DROP INDEX "staff_audit_log_at_idx";
