// `npm run vpn -- <command>`: manage VPN servers.
//   add-server --name ng-lagos-1 --endpoint HOST:51820 --ipv4 10.66.0.0/16 --ipv6 fd66::/64
//              [--public-key KEY] [--dns "1.1.1.1"] [--region ng-lagos]   prints a one-time node token
//   rotate-node-token --name ng-lagos-1                                   prints a new node token
//   list-servers
// PGlite is single-process (DESIGN.md §6): while the server runs, this talks to it
// (POST /api/nodes/servers with the token it wrote to DATA_DIR/vpn-admin.json; --url overrides
// http://127.0.0.1:$PORT). It opens the database itself only when no server holds it.
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { loadConfig, ConfigError, type Config } from "#server/config.ts";
import { readAdminToken } from "#server/domain/vpn/admin-token.ts";
import type { startServices } from "#server/services.ts";
import {
  addVpnServer,
  InvalidVpnServer,
  listVpnServers,
  rotateNodeToken,
} from "#server/domain/vpn/servers.ts";
import { buildIfStale } from "./build-if-stale.js";

const usage = `Usage: npm run vpn -- add-server --name NAME --endpoint HOST:PORT --ipv4 CIDR --ipv6 CIDR [--public-key KEY] [--dns DNS] [--region REGION] [--url URL]
       npm run vpn -- rotate-node-token --name NAME [--url URL]
       npm run vpn -- list-servers [--url URL]`;

class UsageError extends Error {}

type Command =
  | {
      command: "add-server";
      name: string;
      endpoint: string;
      ipv4: string;
      ipv6: string;
      publicKey?: string;
      dns?: string;
      region?: string;
    }
  | { command: "rotate-node-token"; name: string }
  | { command: "list-servers" };

function parseCommand(argv: string[]): { command: Command; url?: string } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      endpoint: { type: "string" },
      ipv4: { type: "string" },
      ipv6: { type: "string" },
      "public-key": { type: "string" },
      dns: { type: "string" },
      region: { type: "string" },
      url: { type: "string" },
    },
  });
  const need = (flag: "name" | "endpoint" | "ipv4" | "ipv6") => {
    const value = values[flag];
    if (!value) throw new UsageError(`--${flag} is required`);
    return value;
  };
  const [name] = positionals;
  if (name === "add-server") {
    return {
      url: values.url,
      command: {
        command: "add-server",
        name: need("name"),
        endpoint: need("endpoint"),
        ipv4: need("ipv4"),
        ipv6: need("ipv6"),
        publicKey: values["public-key"],
        dns: values.dns,
        region: values.region,
      },
    };
  }
  if (name === "rotate-node-token")
    return { url: values.url, command: { command: name, name: need("name") } };
  if (name === "list-servers") return { url: values.url, command: { command: name } };
  throw new UsageError(name ? `unknown command ${name}` : "a command is needed");
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Through the running server. Undefined when no server answers and none holds DATA_DIR. */
async function viaServer(config: Config, command: Command, url: string): Promise<unknown> {
  const admin = await readAdminToken(config.DATA_DIR);
  if (!admin) return undefined;
  let response: Response;
  try {
    response = await fetch(new URL("/api/nodes/servers", url), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${admin.token}` },
      body: JSON.stringify(command),
      signal: AbortSignal.timeout(15_000),
    });
  } catch {
    if (isRunning(admin.pid)) {
      throw new Error(
        `The server (pid ${admin.pid}) holds ${config.DATA_DIR} but did not answer at ${url}; pass --url with its address.`,
      );
    }
    return undefined;
  }
  const body = (await response.json().catch(() => ({}))) as { message?: string };
  if (!response.ok) throw new Error(body.message ?? `The server answered ${response.status}`);
  return body;
}

/** Opens the database itself (through the built server, which carries the migrations). */
async function direct(config: Config, command: Command): Promise<unknown> {
  buildIfStale();
  const bundle = (await import(
    pathToFileURL(path.resolve(import.meta.dirname, "../build/server/index.js")).href
  )) as {
    startServices: typeof startServices;
  };
  const running = await bundle.startServices({ ...config, LOG_LEVEL: "warn" }, { backgroundJobs: false });
  const { db } = running.services;
  try {
    if (command.command === "list-servers") return { servers: await listVpnServers(db) };
    if (command.command === "rotate-node-token") {
      const rotated = await rotateNodeToken(db, command.name);
      if (!rotated) throw new Error(`There is no VPN server named ${command.name}.`);
      return { name: rotated.server.name, nodeToken: rotated.nodeToken };
    }
    const { server, nodeToken } = await addVpnServer(db, {
      name: command.name,
      region: command.region,
      endpoint: command.endpoint,
      publicKey: command.publicKey ?? null,
      ipv4Cidr: command.ipv4,
      ipv6Cidr: command.ipv6,
      dns: command.dns ?? config.VPN_DNS,
    });
    return { name: server.name, endpoint: server.endpoint, nodeToken };
  } finally {
    await running.close();
  }
}

function print(command: Command, result: unknown) {
  if (command.command === "list-servers") {
    const { servers } = result as { servers: Array<Record<string, unknown>> };
    for (const server of servers) {
      console.log(
        [
          server.name,
          server.endpoint,
          server.ipv4Cidr,
          server.ipv6Cidr,
          server.active ? "active" : "inactive",
          server.publicKey ? "key registered" : "waiting for its agent",
          `${String(server.liveDevices)} devices`,
          `last seen ${server.lastSeenAt ? String(server.lastSeenAt) : "never"}`,
        ].join("  "),
      );
    }
    return;
  }
  const { name, nodeToken } = result as { name: string; nodeToken: string };
  console.log(`VPN server ${name}: node token (shown once; store it on the node in a mode-0600 file):`);
  console.log(nodeToken);
  console.log(
    `On the node: npm run agent -- --api <this site's URL> --token-file /etc/naijalink/node-token --interface wg0`,
  );
}

async function main() {
  let parsed: ReturnType<typeof parseCommand>;
  let config: Config;
  try {
    parsed = parseCommand(process.argv.slice(2));
    config = loadConfig();
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n${usage}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  const url = parsed.url ?? `http://127.0.0.1:${config.PORT}`;
  try {
    const result = (await viaServer(config, parsed.command, url)) ?? (await direct(config, parsed.command));
    print(parsed.command, result);
    return 0;
  } catch (error) {
    console.error(
      error instanceof InvalidVpnServer || error instanceof Error ? error.message : String(error),
    );
    return 1;
  }
}

process.exit(await main());
