// The exit host as an operator prepares it (decision 080): the CLI registers the server, the
// bundled agent's `setup` prepares the host and the agent registers its key; a second setup
// changes nothing and uninstall restores the host. The world: tests/support/tunnel/exit-world.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inNs, run, tunnelUnavailableReason } from "../support/tunnel/host.ts";
import { EXIT_CONTROL_ADDRESS, ExitWorld, POOL_V4 } from "../support/tunnel/exit-world.ts";

const reason = tunnelUnavailableReason();
const mustRun = process.env.CI === "true";
if (reason && !mustRun) console.warn(`[tunnel] skipped: ${reason}`);

describe.skipIf(reason !== null && !mustRun)("a VPN exit host prepared by the bundled agent", () => {
  const world = new ExitWorld();
  const { ns, link } = world;

  beforeAll(async () => {
    if (reason) throw new Error(`The tunnel test must run under CI=true but cannot: ${reason}`);
    await world.setUp();
  }, 120_000);
  afterAll(() => world.tearDown(), 60_000);

  it("registers a VPN server with the CLI, prepares the exit with the bundled agent's setup and runs the agent", async () => {
    const nodeToken = await world.addServerWithCli();
    expect(nodeToken).toMatch(/^[A-Za-z0-9_-]{40,}$/);

    const setupOutput = await world.runSetup();
    expect(setupOutput).toContain(`wireguard-go ${link.exitWg}`);
    expect(setupOutput).toContain("ip address add 10.99.0.1/24");
    expect(setupOutput).toContain("ip address add fd99::1/64");
    expect(setupOutput).toContain(
      `exit addresses (reported by the agent, shown by /check): ${EXIT_CONTROL_ADDRESS}`,
    );
    const addresses = await run(inNs(ns.exit, ["ip", "-brief", "address", "show", "dev", link.exitWg]));
    expect(addresses).toContain("10.99.0.1/24");
    expect(addresses).toContain("fd99::1/64");
    const ruleset = await run(inNs(ns.exit, ["nft", "list", "table", "inet", "naijalink"]));
    expect(ruleset).toContain(`iifname "${link.exitWg}" oifname "${link.exitWg}" drop`);
    expect(ruleset).toContain(
      `ip saddr ${POOL_V4} oifname { "${link.exitInet}", "${link.exitRoot}" } masquerade`,
    );

    world.startAgent();
    // The agent registers the key it generated; only then does the server take devices.
    const server = await world.waitForRegistration();
    const exitKey = await run(inNs(ns.exit, ["wg", "show", link.exitWg, "public-key"]));
    expect(server.publicKey).toBe(exitKey.trim());
    expect((await run(inNs(ns.exit, ["wg", "show", link.exitWg, "listen-port"]))).trim()).toBe("51820");
  });

  it("changes nothing when setup runs a second time", async () => {
    const listenPort = () => run(inNs(ns.exit, ["wg", "show", link.exitWg, "listen-port"]));
    const before = `${await world.exitHostState()}\n${await listenPort()}`;
    const output = await world.bundled(world.setupArgs);
    expect(output).toContain("nothing to change: this host is set up");
    expect(`${await world.exitHostState()}\n${await listenPort()}`).toBe(before);
    // The dry run prints and changes nothing, too.
    const dryRun = await world.bundled([...world.setupArgs, "--dry-run"]);
    expect(dryRun).toContain("nothing to change: this host is set up");
  });

  it("uninstall leaves the exit host's rules, addresses and forwarding as they were before setup", async () => {
    world.agent?.kill("SIGTERM");
    const output = await world.bundled(["uninstall", "--state-file", world.stateFile, "--no-systemd"]);
    expect(output).toContain("nft delete table inet naijalink");
    expect(await world.exitHostState()).toBe(world.exitBeforeSetup);
    expect(await world.bundled(["uninstall", "--state-file", world.stateFile, "--no-systemd"])).toContain(
      "nothing to remove",
    );
  });
});
