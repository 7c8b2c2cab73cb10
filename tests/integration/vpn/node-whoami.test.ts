// GET /api/nodes/whoami (decision 097): the address a node's request comes from, as the control
// plane sees it, for `setup` on a node behind NAT. Node token only; TRUST_PROXY decides whether a
// proxy's X-Forwarded-For counts, as everywhere else.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addVpnServer } from "#server/domain/vpn/servers.ts";
import { startTestServer, type TestServer } from "../../support/app.ts";

describe.each([
  ["behind one trusted proxy (TRUST_PROXY=1)", { TRUST_PROXY: "1" }, "203.0.113.77"],
  ["with no proxy trusted", {}, "127.0.0.1"],
])("GET /api/nodes/whoami %s", (_name, env: Record<string, string>, expected) => {
  let server: TestServer;
  let nodeToken = "";
  beforeAll(async () => {
    server = await startTestServer({ env, backgroundJobs: false });
    ({ nodeToken } = await addVpnServer(server.services.db, {
      name: "ng-natted",
      endpoint: "203.0.113.77:51820",
      ipv4Cidr: "10.95.0.0/24",
      ipv6Cidr: "fd95::/64",
      dns: "1.1.1.1",
    }));
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });

  const whoami = (headers: Record<string, string>) =>
    fetch(`${server.url}/api/nodes/whoami`, { headers: { "x-forwarded-for": "203.0.113.77", ...headers } });

  it("answers the node the address its request came from", async () => {
    const response = await whoami({ authorization: `Bearer ${nodeToken}` });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ address: expected });
  });

  it("refuses anyone without a node token, and a wrong one, with a JSON 401", async () => {
    const refused: Array<Record<string, string>> = [
      {},
      { authorization: "Bearer not-a-node-token-0123456789" },
    ];
    for (const headers of refused) {
      const response = await whoami(headers);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: "Unauthorized", message: expect.any(String) });
    }
    const posted = await fetch(`${server.url}/api/nodes/whoami`, {
      method: "POST",
      headers: { authorization: `Bearer ${nodeToken}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(posted.status).toBe(405);
  });
});
