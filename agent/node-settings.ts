// The running agent's hold on the node settings (decision 129): when the server's settings
// version differs from the one applied (or at start), it reads the host, plans the difference
// with setup's builders (setup/settings-plan.ts) and applies it step by step; the version tried,
// the interface's MTU and any error go with the next status report, which is sent at once.
import fs from "node:fs/promises";
import type { AgentLog } from "./agent.ts";
import type { NodeServer, NodeStatus } from "./node-api.ts";
import { applyStep } from "./setup/commands.ts";
import { readFacts } from "./setup/facts.ts";
import { parseRecord, type HostFacts, type Step } from "./setup/plan.ts";
import { buildSettingsPlan } from "./setup/settings-plan.ts";

export type SettingsReport = NonNullable<NodeStatus["settings"]>;

export interface SettingsApplier {
  /** Applies `server`'s settings unless this version was applied already; one apply at a time. */
  take(server: NodeServer): Promise<void>;
  /** Tries the last settings again after a failure (the reconcile timer). */
  retry(): Promise<void>;
  /** What the next status report says; undefined until the first apply. */
  readonly report: SettingsReport | undefined;
  /** Resolves when no apply is under way (at stop). */
  settled(): Promise<void>;
}

export interface SettingsHost {
  readFacts(iface: string, recordFile: string): Promise<HostFacts>;
  applyStep(step: Step): Promise<void>;
}

/** The host as setup reads and changes it; tests pass their own. */
export const realHost: SettingsHost = {
  async readFacts(iface, recordFile) {
    const record = parseRecord(await fs.readFile(recordFile, "utf8").catch(() => null));
    return readFacts({
      iface,
      egress: record?.egress ?? [],
      sysctlKeys: [],
      firewall: record?.firewall,
      unitPath: null,
      recordFile,
    });
  },
  applyStep,
};

export function createSettingsApplier(options: {
  iface: string;
  recordFile: string;
  log: AgentLog;
  /** Called after each apply, so the control plane hears of it at once. */
  onApplied: () => void;
  host?: SettingsHost;
}): SettingsApplier {
  const host = options.host ?? realHost;
  const { iface, recordFile, log } = options;
  let report: SettingsReport | undefined;
  let last: NodeServer | undefined;
  let failed = false;
  let work: Promise<void> = Promise.resolve();

  async function apply(server: NodeServer) {
    const version = server.settingsVersion ?? 0;
    let error: string | undefined;
    let facts: HostFacts | undefined;
    try {
      facts = await host.readFacts(iface, recordFile);
      const plan = buildSettingsPlan(facts, { iface, recordFile, server });
      for (const step of plan.steps) {
        log("info", "applying a node setting", { version, step: step.why });
        await host.applyStep(step);
      }
      if (plan.unmanaged) error = plan.unmanaged;
      if (plan.steps.length) facts = await host.readFacts(iface, recordFile);
    } catch (caught) {
      error = (caught as Error).message.slice(0, 500);
      facts = await host.readFacts(iface, recordFile).catch(() => facts);
    }
    failed = error !== undefined;
    if (failed) log("error", "node settings not applied", { version, reason: error });
    else log("info", "node settings applied", { version, mtu: server.mtu });
    const mtu = facts?.iface.mtu ?? report?.mtu ?? server.mtu;
    report = { version, mtu, ...(error === undefined ? {} : { error }) };
    options.onApplied();
  }

  const exclusive = (next: () => Promise<void>) => {
    const run = work.then(next, next);
    work = run.catch(() => undefined);
    return run;
  };

  return {
    get report() {
      return report;
    },
    take: (server) =>
      exclusive(async () => {
        const same =
          last !== undefined &&
          report !== undefined &&
          !failed &&
          JSON.stringify(last) === JSON.stringify(server);
        last = server;
        if (!same) await apply(server);
      }),
    settled: () => work,
    retry: () =>
      exclusive(async () => {
        if (failed && last) await apply(last);
      }),
  };
}
