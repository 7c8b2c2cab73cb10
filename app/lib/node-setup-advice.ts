// The next step after `add-server` (or a token rotation): the node's `setup`, word for word as
// docs/operating.md §5 gives it (tests/integration/ops/operating-guide.test.ts holds them equal).

export const AGENT_PATH = "/usr/local/lib/naijalink/naijalink-agent.mjs";
export const TOKEN_FILE = "/etc/naijalink/node-token";

/** The listen port of an endpoint `host:port` or `[v6]:port`; 51820 when it cannot be read. */
function portOf(endpoint: string | undefined): string {
  const port = endpoint?.slice(endpoint.lastIndexOf(":") + 1);
  return port && /^\d{1,5}$/.test(port) ? port : "51820";
}

export function nodeSetupCommand(publicUrl: string, endpoint?: string): string {
  return `node ${AGENT_PATH} setup --api ${publicUrl} --token-file ${TOKEN_FILE} --interface wg0 --listen-port ${portOf(endpoint)} --egress eth0`;
}

export function nodeSetupAdvice(publicUrl: string, endpoint?: string): string {
  return [
    `On the node (docs/operating.md §5): write the token to ${TOKEN_FILE} (mode 0600), copy build/agent/naijalink-agent.mjs to ${AGENT_PATH}, then run:`,
    `  ${nodeSetupCommand(publicUrl, endpoint)}`,
    "Behind NAT, setup asks this site for the node's public address and offers it as --exit-addresses.",
  ].join("\n");
}
