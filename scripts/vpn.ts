// `npm run vpn -- <command>`: manage VPN servers (a server is named by its name or id).
//   add-server --name ng-lagos-1 --endpoint HOST:51820 --ipv4 10.66.0.0/16 --ipv6 fd66::/64
//              [--public-key KEY] [--dns "1.1.1.1"] [--region ng-lagos]   prints a one-time node token
//   rotate-node-token --name ng-lagos-1                                   prints a new node token
//   list-servers
//   drain-server SERVER                                                   no new devices; its devices keep working
//   disable-server SERVER                                                 no new devices; its node drops its peers
//   enable-server SERVER                                                  takes new devices (and carries its peers) again
//   set-endpoint SERVER HOST:PORT                                         for configs rendered from now on
//   set-exit SERVER IP[,IP…] | none                                       public exit addresses, for /check
//   remove-server SERVER                                                  only with no live device
// PGlite is single-process (DESIGN.md §6): while the server runs, this talks to it
// (POST /api/nodes/servers with the token it wrote to DATA_DIR/vpn-admin.json; --url overrides
// http://127.0.0.1:$PORT). It opens the database itself only when no server holds it.
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { loadConfig, ConfigError, type Config } from "#server/config.ts";
import { isProcessRunning, readAdminToken } from "#server/domain/vpn/admin-token.ts";
import {
  runServerCommand,
  serverCommandSchema,
  type ServerCommand,
  type ServerCommandResult,
  type ServerSummary,
} from "#server/domain/vpn/server-admin.ts";
import type { startServices } from "#server/services.ts";
import { buildIfStale } from "./build-if-stale.js";

const usage = `Usage: npm run vpn -- add-server --name NAME --endpoint HOST:PORT --ipv4 CIDR --ipv6 CIDR [--public-key KEY] [--dns DNS] [--region REGION] [--url URL]
       npm run vpn -- rotate-node-token --name NAME [--url URL]
       npm run vpn -- list-servers [--url URL]
       npm run vpn -- drain-server SERVER [--url URL]
       npm run vpn -- disable-server SERVER [--url URL]
       npm run vpn -- enable-server SERVER [--url URL]
       npm run vpn -- set-endpoint SERVER HOST:PORT [--url URL]
       npm run vpn -- set-exit SERVER IP[,IP…] [--url URL]   (or "none" to clear them)
       npm run vpn -- remove-server SERVER [--url URL]
SERVER is a server's name or id (list-servers shows both); an IPv6 endpoint goes in brackets: [2001:db8::1]:51820.`;

class UsageError extends Error {}
/** A command whose values break a rule (exit status 1, as when the server refuses it). */
class RefusedCommand extends Error {}

function parseCommand(argv: string[]): { command: ServerCommand; url?: string } {
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
  const [name, ...rest] = positionals;
  const argument = (index: number, what: string) => {
    const value = rest[index];
    if (!value) throw new UsageError(`${name} needs ${what}`);
    return value;
  };
  const command = (): ServerCommand => {
    switch (name) {
      case "add-server":
        return {
          command: name,
          name: need("name"),
          endpoint: need("endpoint"),
          ipv4: need("ipv4"),
          ipv6: need("ipv6"),
          publicKey: values["public-key"],
          dns: values.dns,
          region: values.region,
        };
      case "rotate-node-token":
        return { command: name, name: need("name") };
      case "list-servers":
        return { command: name };
      case "drain-server":
      case "disable-server":
      case "enable-server":
      case "remove-server":
        return { command: name, server: argument(0, "a server name or id") };
      case "set-endpoint":
        return {
          command: name,
          server: argument(0, "a server name or id"),
          endpoint: argument(1, "the new HOST:PORT"),
        };
      case "set-exit": {
        const list = argument(1, 'the exit addresses, such as 203.0.113.7,2001:db8::7 (or "none")');
        return {
          command: name,
          server: argument(0, "a server name or id"),
          addresses: list === "none" ? [] : list.split(",").map((address) => address.trim()),
        };
      }
      default:
        throw new UsageError(name ? `unknown command ${name}` : "a command is needed");
    }
  };
  // The same rules the server applies (serverCommandSchema), checked before anything is sent.
  const checked = serverCommandSchema.safeParse(command());
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new RefusedCommand(`${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`);
  }
  return { url: values.url, command: checked.data };
}

/** Through the running server. Undefined when no server answers and none holds DATA_DIR. */
async function viaServer(
  config: Config,
  command: ServerCommand,
  url: string,
): Promise<ServerCommandResult | undefined> {
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
    if (isProcessRunning(admin.pid)) {
      throw new Error(
        `The server (pid ${admin.pid}) holds ${config.DATA_DIR} but did not answer at ${url}; pass --url with its address.`,
      );
    }
    return undefined;
  }
  const body = (await response.json().catch(() => ({}))) as { message?: string };
  if (!response.ok) throw new Error(body.message ?? `The server answered ${response.status}`);
  return body as ServerCommandResult;
}

/** Opens the database itself (through the built server, which carries the migrations). */
async function direct(config: Config, command: ServerCommand): Promise<ServerCommandResult> {
  buildIfStale();
  const bundle = (await import(
    pathToFileURL(path.resolve(import.meta.dirname, "../build/server/index.js")).href
  )) as {
    startServices: typeof startServices;
  };
  const running = await bundle.startServices({ ...config, LOG_LEVEL: "warn" }, { backgroundJobs: false });
  try {
    return await runServerCommand(running.services.db, config, command);
  } finally {
    await running.close();
  }
}

const liveDevicesText = (count: number) => `${count} live device${count === 1 ? "" : "s"}`;

function describeServer(server: ServerSummary): string {
  return [
    server.name,
    server.id,
    server.endpoint,
    server.ipv4Cidr,
    server.ipv6Cidr,
    server.status,
    server.exitAddresses.length ? `exits ${server.exitAddresses.join(",")}` : "no exit addresses",
    server.publicKey ? "key registered" : "waiting for its agent",
    liveDevicesText(server.liveDevices),
    `last seen ${server.lastSeenAt ? String(server.lastSeenAt) : "never"}`,
  ].join("  ");
}

function print(command: ServerCommand, result: ServerCommandResult) {
  if ("servers" in result) {
    for (const server of result.servers) console.log(describeServer(server));
    return;
  }
  if ("removed" in result) {
    console.log(`VPN server ${result.removed} removed; its node token no longer works.`);
    return;
  }
  if ("server" in result) {
    const { server } = result;
    if (command.command === "drain-server")
      console.log(
        `VPN server ${server.name} draining: it takes no new devices; the devices on it keep working.`,
      );
    else if (command.command === "disable-server")
      console.log(
        `VPN server ${server.name} disabled: it takes no new devices and its node drops their peers, so the devices on it stop connecting until it is enabled again.`,
      );
    else if (command.command === "enable-server")
      console.log(`VPN server ${server.name} active: it takes new devices and carries its peers.`);
    else if (command.command === "set-exit")
      console.log(
        server.exitAddresses.length
          ? `VPN server ${server.name} exits from ${server.exitAddresses.join(", ")}: /check recognises them.`
          : `VPN server ${server.name} has no exit addresses: /check recognises none of its visitors.`,
      );
    else
      console.log(
        `VPN server ${server.name} now at ${server.endpoint}: configs downloaded from now on carry it; configs handed out before keep the old endpoint.`,
      );
    console.log(describeServer(server));
    return;
  }
  console.log(
    `VPN server ${result.name}: node token (shown once; store it on the node in a mode-0600 file):`,
  );
  console.log(result.nodeToken);
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
    if (error instanceof RefusedCommand) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  const url = parsed.url ?? `http://127.0.0.1:${config.PORT}`;
  try {
    const result = (await viaServer(config, parsed.command, url)) ?? (await direct(config, parsed.command));
    print(parsed.command, result);
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

process.exit(await main());
