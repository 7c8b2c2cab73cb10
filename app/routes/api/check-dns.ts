import { z } from "zod";
import { dnsCheckNonceSchema } from "#agent/node-api.ts";
import { answerDnsCheck } from "#server/domain/vpn/dns-checks.ts";
import { handleApi, methodNotAllowed, parseInput } from "#server/http/api.ts";
import type { Route } from "./+types/check-dns";

const querySchema = z.object({ nonce: dnsCheckNonceSchema }).strict();

/**
 * `GET /api/check/dns?nonce=…`: whether one of our nodes' resolvers was asked for
 * `<nonce>.<VPN_DNS_CHECK_ZONE>`, i.e. whether the visitor's DNS goes through the tunnel.
 */
export const loader = ({ request, context, params }: Route.LoaderArgs) =>
  handleApi({ request, context, params }, async () => {
    if (request.method !== "GET" && request.method !== "HEAD") throw methodNotAllowed(["GET"]);
    const { nonce } = parseInput(querySchema, Object.fromEntries(new URL(request.url).searchParams));
    return answerDnsCheck(context.services.db, nonce, context.clientIp);
  });

export const action = ({ request, context, params }: Route.ActionArgs) =>
  handleApi({ request, context, params }, async () => {
    throw methodNotAllowed(["GET"]);
  });
