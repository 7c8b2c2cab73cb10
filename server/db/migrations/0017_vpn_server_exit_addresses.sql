-- Decision 069. The public addresses a VPN server's traffic leaves from (IPv4 and IPv6, in
-- canonical form), set by the operator (`npm run vpn -- set-exit`) or reported by its agent;
-- /check compares a visitor's address with them.
ALTER TABLE "vpn_servers" ADD COLUMN "exit_addresses" text[] DEFAULT '{}'::text[] NOT NULL;
