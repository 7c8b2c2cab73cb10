import fs from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { ADMIN_TOKEN_FILE } from "#server/domain/vpn/admin-token.ts";
import type { TestApp } from "./app.ts";

/** The admin token the server wrote into DATA_DIR for `npm run vpn`. */
export async function adminToken(app: TestApp): Promise<string> {
  const file = JSON.parse(await fs.readFile(path.join(app.dataDir, ADMIN_TOKEN_FILE), "utf8")) as {
    token: string;
  };
  return file.token;
}

/** Sends one `npm run vpn` command to the admin API, as the CLI does while the server runs. */
export async function adminCommand(app: TestApp, command: Record<string, unknown>): Promise<Response> {
  return app.request("/api/nodes/servers", {
    json: command,
    headers: { authorization: `Bearer ${await adminToken(app)}` },
  });
}

/** Adds a VPN server (without a node key yet) as `npm run vpn -- add-server` does. */
export async function addServerViaAdmin(app: TestApp, name: string) {
  const response = await adminCommand(app, {
    command: "add-server",
    name,
    endpoint: "203.0.113.20:51820",
    ipv4: "10.70.0.0/24",
    ipv6: "fd70::/64",
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { name: string; nodeToken: string };
}
