// The two-year shop `npm run bench:scale` measures, written with set-based SQL (insert … select …
// from generate_series), not through the app: minutes through the app would be seconds here.
// Every row keeps the schema's constraints, and the triggers run as they do for the app's own
// writes (devices keep the servers' allocation state and the node change feed; subscriptions
// their status history). Row ids are derived from their number (md5), so the benchmark can name
// a row without reading it back.

/** How many rows of each kind: the full shop at scale 1. */
export function shopSize(scale: number) {
  const rows = (count: number) => Math.max(1, Math.round(count * scale));
  return {
    customers: rows(100_000),
    subscriptions: rows(120_000),
    /** Checkouts that never became a subscription: abandoned (expired) or still open. */
    unpaidCheckouts: rows(30_000),
    devices: rows(150_000),
    servers: 20,
    auditRows: rows(1_000_000),
    sentEmails: rows(500_000),
    contactMessages: rows(10_000),
  };
}

export type ShopSize = ReturnType<typeof shopSize>;

/** The customer with ten subscriptions whose /account is measured. */
export const MANY_SUBSCRIPTIONS_EMAIL = "ten-plans@bench.example";

/** Subscription `i`'s id, as the seed writes it. */
export const subscriptionIdSql = (i: string) => `md5('subscription-' || ${i})::uuid`;

/**
 * The statements, in order. `sealed` is a value sealed with the app's at-rest key (a device's
 * keys and token, an e-mail): pages that open one get a value they can open.
 */
export function seedStatements(size: ShopSize, sealed: { device: string; email: string }): string[] {
  const M = size.subscriptions;
  const N = size.customers;
  const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
  // Subscription i was bought at `created(i)`: evenly over the last two years, oldest first.
  const created = (i: string) => `(now() - interval '730 days' + (${i}) * (interval '729 days' / ${M}))`;
  const plan = (i: string) => `(array['unlock','basic-monthly','pro-monthly','pro-yearly'])[(${i}) % 4 + 1]`;
  const email = (i: string) =>
    `(case when ${i} <= 10 then ${quote(MANY_SUBSCRIPTIONS_EMAIL)} else 'customer' || ((${i} - 1) % ${N} + 1) || '@example.com' end)`;
  const statuses = `(array['active','active','active','active','active','active','active','active','active','active','active','active','past_due','canceled','canceled','expired','expired','expired','refunded','disputed'])`;
  return [
    `insert into vpn_servers (name, endpoint, public_key, ipv4_cidr, ipv6_cidr, dns, node_token_hash, last_seen_at)
     select 'lagos-' || s, 'vpn' || s || '.bench.example:51820',
            encode(sha256(('server-key-' || s)::bytea), 'base64'),
            '10.' || (100 + s) || '.0.0/16', 'fd66:' || s || '::/64', '10.' || (100 + s) || '.0.1',
            md5('node-token-' || s), now()
     from generate_series(1, ${size.servers}) s`,
    `insert into checkout_sessions (id, provider, plan_id, customer_email, customer_name, amount_cents, status, payment_reference, paid_amount_cents, paid_currency, created_at, paid_at)
     select 'cs_bench_' || i, 'stripe', ${plan("i")}, ${email("i")},
            (array['Ada','Chidi','Ngozi','Tunde','Amaka','Emeka','Funmi','Bola'])[i % 8 + 1] || ' ' ||
              (array['Obi','Okafor','Adeyemi','Balogun','Eze','Nwosu','Bello','Okeke'])[(i / 8) % 8 + 1] || ' ' || i,
            (array[999, 499, 799, 7999])[i % 4 + 1], 'paid', 'pi_bench_' || i,
            (array[999, 499, 799, 7999])[i % 4 + 1], 'usd',
            ${created("i")} - interval '2 minutes', ${created("i")} - interval '1 minute'
     from generate_series(1, ${M}) i`,
    // Abandoned checkouts of the last month (older ones housekeeping has removed), and a few open.
    `insert into checkout_sessions (id, provider, plan_id, customer_email, amount_cents, status, created_at)
     select 'cs_bench_unpaid_' || i, 'stripe', ${plan("i")}, 'browser' || i || '@example.com',
            (array[999, 499, 799, 7999])[i % 4 + 1],
            case when i % 100 = 0 then 'open' else 'expired' end,
            now() - (i % 2900) * interval '15 minutes'
     from generate_series(1, ${size.unpaidCheckouts}) i`,
    `insert into subscriptions (id, plan_id, plan_type, device_limit, status, customer_email, expires_at, cancel_at_period_end, checkout_session_id, stripe_customer_id, stripe_subscription_id, created_at, updated_at)
     select ${subscriptionIdSql("i")}, ${plan("i")},
            (array['unlock','basic','pro_monthly','pro_yearly'])[i % 4 + 1],
            (array[1, 1, 3, 3])[i % 4 + 1], st, ${email("i")},
            case when st in ('active', 'past_due') then now() + (1 + i % 30) * interval '1 day'
                 else ${created("i")} + interval '30 days' end,
            st = 'active' and i % 7 = 0,
            'cs_bench_' || i,
            case when i % 4 = 0 then null else 'cus_bench_' || ((i - 1) % ${N} + 1) end,
            case when i % 4 = 0 then null else 'sub_bench_' || i end,
            ${created("i")}, ${created("i")}
     from generate_series(1, ${M}) i,
          -- Of the first year's sales, only the yearly plans can still be paid up.
          lateral (select case when ${statuses}[i % 20 + 1] in ('active', 'past_due') and i < ${M} / 2 and i % 4 <> 3
                               then (array['expired', 'canceled'])[i % 2 + 1] else ${statuses}[i % 20 + 1] end as st) s`,
    // Device j belongs to subscription (j - 1) % M + 1 (slot 1 for the first M, then slot 2), on
    // server j % servers; one in ten is revoked. Its address is its number on that server.
    `insert into devices (subscription_id, slot, name, vpn_server_id, public_key, private_key_sealed, preshared_key_sealed, address_index, ipv4, ipv6, download_token_hash, download_token_sealed, activated_at, activated_via, revoked_at, last_handshake_at, config_issued_at, created_at, updated_at)
     select ${subscriptionIdSql(`((j - 1) % ${M} + 1)`)}, (j - 1) / ${M} + 1, 'Device ' || j, v.id,
            encode(sha256(('device-key-' || j)::bytea), 'base64'), ${quote(sealed.device)}, ${quote(sealed.device)},
            a, '10.' || (100 + v.n) || '.' || (a / 256) || '.' || (a % 256), 'fd66:' || v.n || '::' || to_hex(a),
            md5('download-token-' || j), ${quote(sealed.device)},
            ${created(`((j - 1) % ${M} + 1)`)}, 'download',
            case when j % 10 = 0 then ${created(`((j - 1) % ${M} + 1)`)} + interval '3 days' end,
            now() - (j % 1000) * interval '1 minute',
            ${created(`((j - 1) % ${M} + 1)`)}, ${created(`((j - 1) % ${M} + 1)`)}, ${created(`((j - 1) % ${M} + 1)`)}
     from generate_series(1, ${size.devices}) j
          cross join lateral (select j / ${size.servers} + 2 as a) address
          join (select id, substr(name, 7)::int as n from vpn_servers where name ~ '^lagos-[0-9]+$') v on v.n = j % ${size.servers} + 1`,
    // The ledger: each subscription's purchase, a renewal a month (a year for pro-yearly) up to
    // now, plan changes, refunds and disputes, as billing/ledger.ts records them.
    `insert into ledger_entries (key, kind, purpose, order_number, amount_cents, currency, subscription_id, checkout_session_id, plan_id, customer_email, provider, provider_reference, occurred_at, recorded_at)
     select 'charge:checkout:cs_bench_' || i, 'charge', 'purchase',
            upper(substr(replace(${subscriptionIdSql("i")}::text, '-', ''), 1, 4) || '-' || substr(replace(${subscriptionIdSql("i")}::text, '-', ''), 5, 4) || '-' || substr(replace(${subscriptionIdSql("i")}::text, '-', ''), 9, 4)),
            (array[999, 499, 799, 7999])[i % 4 + 1], 'usd', ${subscriptionIdSql("i")}, 'cs_bench_' || i, ${plan("i")},
            ${email("i")}, 'stripe', 'pi_bench_' || i, ${created("i")}, ${created("i")}
     from generate_series(1, ${M}) i`,
    `insert into ledger_entries (key, kind, purpose, order_number, amount_cents, currency, subscription_id, plan_id, customer_email, provider, provider_reference, occurred_at, recorded_at)
     select 'charge:invoice:in_bench_' || i || '_' || k, 'charge', 'renewal',
            upper(substr(md5('renewal-' || i || '-' || k), 1, 4) || '-' || substr(md5('renewal-' || i || '-' || k), 5, 4) || '-' || substr(md5('renewal-' || i || '-' || k), 9, 4)),
            (array[999, 499, 799, 7999])[i % 4 + 1], 'usd', ${subscriptionIdSql("i")}, ${plan("i")}, ${email("i")},
            'stripe', 'in_bench_' || i || '_' || k, at, at
     from generate_series(1, ${M}) i,
          lateral generate_series(1, 24) k,
          lateral (select ${created("i")} + k * (case when i % 4 = 3 then interval '1 year' else interval '1 month' end) as at) t
     where i % 4 <> 0 and at < now() and k <= 1 + i % 8`,
    `insert into plan_changes (id, subscription_id, kind, from_plan_id, to_plan_id, amount_cents, status, requested_at, applied_at)
     select md5('plan-change-' || i)::uuid, ${subscriptionIdSql("i")}, 'upgrade', 'basic-monthly', 'pro-monthly', 300, 'applied',
            ${created("i")} + interval '5 days', ${created("i")} + interval '5 days'
     from generate_series(1, ${M}) i where i % 4 = 1 and i % 25 = 1`,
    `insert into ledger_entries (key, kind, purpose, order_number, amount_cents, currency, subscription_id, plan_change_id, plan_id, customer_email, provider, provider_reference, occurred_at, recorded_at)
     select 'charge:plan-change:' || md5('plan-change-' || i)::uuid, 'charge', 'plan_change',
            upper(substr(md5('change-' || i), 1, 4) || '-' || substr(md5('change-' || i), 5, 4) || '-' || substr(md5('change-' || i), 9, 4)),
            300, 'usd', ${subscriptionIdSql("i")}, md5('plan-change-' || i)::uuid, 'pro-monthly', ${email("i")},
            'stripe', 'in_bench_change_' || i, ${created("i")} + interval '5 days', ${created("i")} + interval '5 days'
     from generate_series(1, ${M}) i where i % 4 = 1 and i % 25 = 1`,
    // Refunded (status 18 of 20) and disputed (19 of 20) subscriptions: their purchase went back.
    `insert into ledger_entries (key, kind, order_number, amount_cents, currency, subscription_id, plan_id, customer_email, provider, provider_reference, occurred_at, recorded_at)
     select case when i % 20 = 18 then 'refund:ch_bench_' || i else 'dispute:dp_bench_' || i end,
            case when i % 20 = 18 then 'refund' else 'dispute' end,
            upper(substr(replace(${subscriptionIdSql("i")}::text, '-', ''), 1, 4) || '-' || substr(replace(${subscriptionIdSql("i")}::text, '-', ''), 5, 4) || '-' || substr(replace(${subscriptionIdSql("i")}::text, '-', ''), 9, 4)),
            (array[999, 499, 799, 7999])[i % 4 + 1], 'usd', ${subscriptionIdSql("i")}, ${plan("i")}, ${email("i")},
            'stripe', case when i % 20 = 18 then 're_bench_' || i else 'dp_bench_' || i end,
            ${created("i")} + interval '10 days', ${created("i")} + interval '10 days'
     from generate_series(1, ${M}) i where i % 20 in (18, 19)`,
    `insert into staff_audit_log (at, staff_user_id, staff_email, action, target_type, target_id, reason, details)
     select now() - interval '730 days' + n * (interval '729 days' / ${size.auditRows}),
            'staff-' || (n % 5), 'staff' || (n % 5) || '@naijalink.example',
            (array['subscription.extend','subscription.cancel','subscription.refund','device.revoke','device.resend-config','message.status','post.publish','orders.export'])[n % 8 + 1],
            (array['subscription','subscription','subscription','device','device','message','post','export'])[n % 8 + 1],
            ${subscriptionIdSql(`(n % ${M} + 1)`)}::text, case when n % 3 = 0 then 'Customer asked' end,
            jsonb_build_object('note', n)
     from generate_series(1, ${size.auditRows}) n`,
    // Sent e-mails of the last 29 days (housekeeping removes them after 30).
    `insert into outbox_messages (kind, to_address, sealed_message, status, attempts, next_attempt_at, sent_at, created_at)
     select (array['config','receipt','renewal-reminder','contact'])[n % 4 + 1],
            ${email(`(n % ${M} + 1)`)}, ${quote(sealed.email)}, 'sent', 1, at, at + interval '2 seconds', at
     from generate_series(1, ${size.sentEmails}) n,
          lateral (select now() - interval '29 days' + n * (interval '29 days' / ${size.sentEmails}) as at) t`,
    `insert into contact_messages (name, email, subject, message, status, status_changed_at, status_changed_by, created_at)
     select 'Visitor ' || n, 'visitor' || n || '@example.com', 'Question ' || n, 'Does it work with DStv Now? ' || n,
            (array['new','answered','closed'])[n % 3 + 1],
            case when n % 3 = 0 then null else at + interval '1 day' end,
            case when n % 3 = 0 then null else 'staff0@naijalink.example' end, at
     from generate_series(1, ${size.contactMessages}) n,
          lateral (select now() - interval '170 days' + n * (interval '169 days' / ${size.contactMessages}) as at) t`,
    // As autovacuum leaves a table that has settled: statistics, and the pages marked all-visible.
    "vacuum analyze",
  ];
}
