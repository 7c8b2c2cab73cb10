// `npm run vpn -- <command>`: manage VPN servers (a server is named by its name or id); the usage
// below lists every command. It reaches the store as scripts/store-client.ts says (--url overrides
// the address the running app recorded).
import { ConfigError, loadConfig, type Config } from "#server/config.ts";
import {
  runServerCommand,
  serverCommandSchema,
  type ServerCommand,
  type ServerCommandResult,
} from "#server/domain/vpn/server-admin.ts";
import type { startServices } from "#server/services.ts";
import { parseCommandLine, usageError } from "#agent/command-line.ts";
import { loadEnvFile } from "./env-file.js";
import { askRunningServer, builtServer, ServerUnreachable } from "./store-client.ts";
import { printResult } from "./vpn-output.ts";
import { parseClientSettingArguments } from "#server/domain/vpn/client-setting-commands.ts";

const usage = `Usage: npm run vpn -- add-server --name NAME --endpoint HOST:PORT --ipv4 CIDR --ipv6 CIDR [--public-key KEY] [--dns DNS] [--region REGION]
       npm run vpn -- rotate-node-token --name NAME
       npm run vpn -- list-servers
       npm run vpn -- drain-server SERVER             no new devices; its devices keep working
       npm run vpn -- disable-server SERVER           no new devices; its node drops their peers
       npm run vpn -- enable-server SERVER            takes new devices (and carries its peers) again
       npm run vpn -- set-endpoint SERVER HOST:PORT   for configs rendered from now on
       npm run vpn -- set-exit SERVER IP[,IP…]        public exit addresses, for /check ("none" clears them)
       npm run vpn -- move-devices SERVER [--to SERVER]   every live device to another server; owners are e-mailed
       npm run vpn -- revoke-devices SERVER           revokes every live device on it; owners are e-mailed
       npm run vpn -- remove-server SERVER            only with no live device
       npm run vpn -- set-mtu SERVER MTU              the MTU = line of its configs and its node (1280-1420)
       npm run vpn -- set-ports SERVER PORT[,PORT…]   extra UDP ports its node accepts, such as 443 ("none" for none)
       npm run vpn -- set-dns SERVER node|IP[,IP…]    its configs' DNS: the node's own resolver, or these
       npm run vpn -- list-services                   the streaming services every node checks from its exit
       npm run vpn -- add-service NAME URL [--status 200] [--contains TEXT] [--lacks TEXT] [--optional]
                                                      check URL from every exit: it works when it answers that
                                                      status (no redirect followed) and holds / lacks the texts
       npm run vpn -- remove-service NAME             stop checking it
Every command takes [--url URL] (the running app; default: where it recorded it listens, in
DATA_DIR/vpn-admin.json; else http://127.0.0.1:$PORT) and --help.
The node's running agent applies set-mtu, set-ports and set-dns within seconds; list-servers shows
desired against applied ("MTU 1380 (node still on 1280 since …)"), and configs carry a new MTU,
new ports and a switch of resolver once the node has applied them.
SERVER is a server's name or id (list-servers shows both); an IPv6 endpoint goes in brackets: [2001:db8::1]:51820.`;

/** A command whose values break a rule (exit status 1, as when the server refuses it). */
class RefusedCommand extends Error {}

function parseCommand(argv: string[]): { command: ServerCommand; url?: string } {
  const { values, positionals } = parseCommandLine(usage, argv, {
    name: { type: "string" },
    endpoint: { type: "string" },
    ipv4: { type: "string" },
    ipv6: { type: "string" },
    "public-key": { type: "string" },
    dns: { type: "string" },
    region: { type: "string" },
    to: { type: "string" },
    url: { type: "string" },
    status: { type: "string" },
    contains: { type: "string" },
    lacks: { type: "string" },
    optional: { type: "boolean" },
  });
  const need = (flag: "name" | "endpoint" | "ipv4" | "ipv6") =>
    values[flag] || usageError(`--${flag} is required`, usage);
  const [name, ...rest] = positionals;
  const argument = (index: number, what: string) => rest[index] || usageError(`${name} needs ${what}`, usage);
  const server = () => argument(0, "a server name or id");
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
      case "revoke-devices":
        return { command: name, server: server() };
      case "move-devices":
        return { command: name, server: server(), to: values.to };
      case "set-endpoint":
        return { command: name, server: server(), endpoint: argument(1, "the new HOST:PORT") };
      case "list-services":
        return { command: name };
      case "add-service":
        return {
          command: name,
          name: argument(0, "the service's name"),
          url: argument(1, "the URL to fetch"),
          ...(values.status === undefined ? {} : { expectStatus: values.status }),
          ...(values.contains === undefined ? {} : { bodyContains: values.contains }),
          ...(values.lacks === undefined ? {} : { bodyLacks: values.lacks }),
          required: !values.optional,
        };
      case "remove-service":
        return { command: name, service: argument(0, "the service's name") };
      case "set-exit": {
        const list = argument(1, 'the exit addresses, such as 203.0.113.7,2001:db8::7 (or "none")');
        return {
          command: name,
          server: server(),
          addresses: list === "none" ? [] : list.split(",").map((address) => address.trim()),
        };
      }
      default: {
        const setting = name && parseClientSettingArguments(name, rest[0] ?? "", rest[1] ?? "");
        if (!setting) return usageError(name ? `unknown command ${name}` : "a command is needed", usage);
        argument(0, "a server name or id");
        argument(1, "the new value");
        return setting;
      }
    }
  };
  if (values.to !== undefined && name !== "move-devices") usageError("--to belongs to move-devices", usage);
  for (const flag of ["status", "contains", "lacks", "optional"] as const)
    if (values[flag] !== undefined && name !== "add-service")
      usageError(`--${flag} belongs to add-service`, usage);
  // The same rules the server applies (serverCommandSchema), checked before anything is sent.
  const checked = serverCommandSchema.safeParse(command());
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new RefusedCommand(`${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`);
  }
  return { url: values.url, command: checked.data };
}

/** Opens the database itself: no server holds DATA_DIR. */
async function direct(config: Config, command: ServerCommand): Promise<ServerCommandResult> {
  const bundle = await builtServer<{ startServices: typeof startServices }>();
  const running = await bundle.startServices({ ...config, LOG_LEVEL: "warn" }, { backgroundJobs: false });
  try {
    const result = await runServerCommand(running.services.db, running.services, command);
    await running.services.mail.drain();
    return result;
  } finally {
    await running.close();
  }
}

async function main() {
  loadEnvFile();
  const parsed = parseCommand(process.argv.slice(2));
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
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
  const url = parsed.url;
  try {
    const result =
      (await askRunningServer<ServerCommandResult>(config, url, "/api/nodes/servers", parsed.command)) ??
      (await direct(config, parsed.command));
    printResult(parsed.command, result, config.PUBLIC_URL, (line) => console.log(line));
    return 0;
  } catch (error) {
    if (error instanceof ServerUnreachable) console.error(`${error.message} — fix: ${error.fix}`);
    else console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

process.exit(await main());
