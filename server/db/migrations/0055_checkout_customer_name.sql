ALTER TABLE "checkout_sessions" ADD COLUMN "customer_name" text;
