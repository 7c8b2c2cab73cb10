ALTER TABLE "checkout_sessions" ADD COLUMN "buyer_token_hash" text;
