// The agent's systemd unit, written by `setup` (the one source of the unit: `setup --dry-run`
// prints it). Every start runs `setup --no-systemd` first, which puts back after a reboot what
// the kernel forgets (interface, addresses, forwarding, rules) and changes nothing otherwise.

export const UNIT_NAME = "naijalink-agent.service";

/** One ExecStart word: systemd splits on spaces, expands `%` specifiers and `$` variables. */
function unitWord(word: string): string {
  const escaped = word.replaceAll("%", "%%").replaceAll("$", "$$$$");
  return /[\s"'\\;]/.test(escaped) ? `"${escaped.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"` : escaped;
}

const commandLine = (argv: string[]) => argv.map(unitWord).join(" ");

export interface UnitOptions {
  /** `node` and the bundle, as absolute paths. */
  node: string;
  bundle: string;
  /** The arguments of `setup --no-systemd` and of the agent itself. */
  setupArgs: string[];
  agentArgs: string[];
}

export function agentUnit({ node, bundle, setupArgs, agentArgs }: UnitOptions): string {
  return [
    "[Unit]",
    "Description=NaijaLink VPN node agent",
    "Wants=network-online.target",
    "After=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    `ExecStartPre=${commandLine([node, bundle, "setup", "--no-systemd", ...setupArgs])}`,
    `ExecStart=${commandLine([node, bundle, ...agentArgs])}`,
    "Restart=always",
    "RestartSec=5",
    // wireguard-go (no kernel module) holds the interface: it must outlive a restart of the agent.
    "KillMode=process",
    "NoNewPrivileges=yes",
    "PrivateTmp=yes",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    "",
  ].join("\n");
}
