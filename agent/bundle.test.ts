import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgent } from "../scripts/build-agent.js";
import { systemdRunning } from "./setup/facts.ts";
import { server } from "./setup/plan-fixtures.ts";

// The agent ships as one file that plain `node` runs on a VPN host with no node_modules.
describe("the bundled agent", () => {
  let directory = "";
  let bundle = "";
  let controlPlane: http.Server;
  let apiUrl = "";

  /** Runs the bundle from its own directory with nothing but PATH in the environment. */
  const runBundle = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [bundle, ...args],
        { cwd: directory, env: { PATH: process.env.PATH }, timeout: 30_000 },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    directory = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-agent-bundle-"));
    bundle = await buildAgent(path.join(directory, "naijalink-agent.mjs"));
    await fs.writeFile(path.join(directory, "node-token"), "node-token-for-the-test\n", { mode: 0o600 });
    controlPlane = http.createServer((request, response) => {
      const authorized = request.headers.authorization === "Bearer node-token-for-the-test";
      response.writeHead(authorized ? 200 : 401, { "content-type": "application/json" });
      response.end(JSON.stringify(authorized ? { kind: "full", version: "1", server, peers: [] } : {}));
    });
    await new Promise<void>((resolve) => controlPlane.listen(0, "127.0.0.1", resolve));
    apiUrl = `http://127.0.0.1:${(controlPlane.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    controlPlane?.close();
    await fs.rm(directory, { recursive: true, force: true });
  });

  it("is one file that imports nothing but Node's built-ins", async () => {
    expect(await fs.readdir(directory)).toEqual(["naijalink-agent.mjs", "node-token"]);
    const text = await fs.readFile(bundle, "utf8");
    const imports = [...text.matchAll(/^import .* from ["']([^"']+)["'];?$/gm)].map((match) => match[1]!);
    expect(imports.filter((specifier) => !specifier.startsWith("node:"))).toEqual([]);
    expect(text).not.toMatch(/\brequire\(["'](?!node:)[a-z@]/);
  });

  it("prints its usage with plain node and no node_modules", async () => {
    const { code, stdout } = await runBundle(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain(
      "naijalink-agent setup --api URL --token-file FILE --interface wg0 --egress eth0",
    );
    expect(stdout).toContain("naijalink-agent uninstall");
  });

  it("refuses a bad flag with its usage", async () => {
    const { code, stderr } = await runBundle([
      "setup",
      "--api",
      apiUrl,
      "--token-file",
      "node-token",
      "--egress",
      "lo",
      "--listen-port",
      "70000",
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain("--listen-port must be 1..65535");
  });

  it.skipIf(process.platform !== "linux")(
    "prints the host's setup with --dry-run (the unit under systemd, else the agent's command), and changes nothing",
    async () => {
      const iface = `nlb${process.pid % 100_000}`;
      const systemdDir = path.join(directory, "systemd");
      const stateFile = path.join(directory, "state", "setup.json");
      const { code, stdout, stderr } = await runBundle([
        "setup",
        "--dry-run",
        "--api",
        apiUrl,
        "--token-file",
        "node-token",
        "--interface",
        iface,
        "--egress",
        "lo",
        "--exit-addresses",
        "203.0.113.9",
        "--state-file",
        stateFile,
        "--systemd-dir",
        systemdDir,
      ]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(stdout).toContain("setup --dry-run: nothing is changed (server lagos-1)");
      expect(stdout).toContain(`ip address add 10.66.0.1/16 dev ${iface}`);
      expect(stdout).toContain(`ip address add fd66::1/64 dev ${iface}`);
      expect(stdout).toContain(`ip link set ${iface} mtu 1280`);
      // The MSS clamp, the alternate port's redirect and the resolver, whichever firewall this host has.
      expect(stdout).toMatch(/tcp option maxseg size set rt mtu|-j TCPMSS --clamp-mss-to-pmtu/);
      expect(stdout).toMatch(/udp dport 443 redirect to :51820|--dport 443 -j REDIRECT --to-ports 51820/);
      expect(stdout).toContain("install -m 644 /dev/stdin /etc/unbound/unbound.conf.d/naijalink.conf");
      expect(stdout).toContain("    interface: 10.66.0.1\n    interface: fd66::1\n");
      expect(stdout).toContain("--dns-check-port 9553");
      // Under systemd the unit is installed; on a host without it (a container, as CI's), setup
      // installs none and prints the agent's command line, every flag included.
      if (await systemdRunning()) {
        expect(stdout).toContain(
          `install -m 644 /dev/stdin ${path.join(systemdDir, "naijalink-agent.service")}`,
        );
        expect(stdout).toContain(`ExecStart=${process.execPath} ${bundle} --api ${apiUrl}`);
      } else {
        expect(stdout).toContain(
          "# systemd does not run this host (no /run/systemd/system): no service unit",
        );
        expect(stdout).not.toContain("naijalink-agent.service");
        expect(stdout).toContain(`${process.execPath} ${bundle} --api ${apiUrl}`);
      }
      expect(stdout).toContain(`--exit-addresses 203.0.113.9`);
      expect(stdout).toContain("# exit addresses (reported by the agent, shown by /check): 203.0.113.9");
      // Nothing was written.
      expect(await fs.readdir(directory)).toEqual(["naijalink-agent.mjs", "node-token"]);
    },
  );

  it("explains a refused node token and changes nothing", async () => {
    await fs.writeFile(path.join(directory, "wrong-token"), "wrong\n");
    const { code, stderr } = await runBundle([
      "setup",
      "--dry-run",
      "--api",
      apiUrl,
      "--token-file",
      "wrong-token",
      "--egress",
      "lo",
      "--no-systemd",
      "--state-file",
      path.join(directory, "none.json"),
    ]);
    await fs.rm(path.join(directory, "wrong-token"));
    expect(code).toBe(1);
    expect(stderr).toContain("cannot learn this server's addresses");
    expect(stderr).toContain("answered 401");
  });
});
