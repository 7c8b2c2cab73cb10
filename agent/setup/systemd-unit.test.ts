import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { agentUnit, UNIT_NAME } from "./systemd-unit.ts";

describe("the agent's systemd unit", () => {
  const unit = agentUnit({
    node: "/usr/bin/node",
    bundle: "/opt/naijalink agent/naijalink-agent.mjs",
    setupArgs: ["--api", "https://naijalink.example", "--egress", "eth0"],
    agentArgs: ["--api", "https://naijalink.example", "--token-file", "/etc/naijalink/100%$token"],
  });

  it("prepares the host before every start, then runs the agent", () => {
    expect(unit).toContain(
      'ExecStartPre=/usr/bin/node "/opt/naijalink agent/naijalink-agent.mjs" setup --no-systemd --api https://naijalink.example --egress eth0\n',
    );
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/node "\/opt\/naijalink agent\/naijalink-agent.mjs" --api /m);
    expect(unit).toContain("Restart=always");
    expect(unit).toContain("WantedBy=multi-user.target");
  });

  it("escapes what systemd would expand in a path", () => {
    expect(unit).toContain("--token-file /etc/naijalink/100%%$$token\n");
  });

  it("keeps wireguard-go running when the agent restarts", () => {
    expect(unit).toContain("KillMode=process");
  });

  it("passes systemd-analyze verify", () => {
    const analyze = spawnSync("systemd-analyze", ["--version"], { stdio: "ignore" });
    if (analyze.error || analyze.status !== 0)
      throw new Error("this test needs systemd-analyze (Debian package systemd)");
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "naijalink-unit-"));
    try {
      const file = path.join(directory, UNIT_NAME);
      const runnable = { node: process.execPath, bundle: file, setupArgs: [], agentArgs: [] };
      fs.writeFileSync(file, agentUnit(runnable));
      const result = spawnSync("systemd-analyze", ["verify", file], { encoding: "utf8" });
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
