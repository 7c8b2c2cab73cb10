// Desired against applied node settings (decision 129): what `npm run vpn -- list-servers` and
// /admin/servers say of a server's MTU, ports and resolver while its node catches up.
import type { VpnServer } from "#server/db/schema/index.ts";

export type NodeSettingsColumns = Pick<
  VpnServer,
  | "clientMtu"
  | "appliedClientMtu"
  | "settingsVersion"
  | "settingsChangedAt"
  | "appliedSettingsVersion"
  | "appliedSettingsAt"
  | "settingsApplyError"
>;

export interface NodeSettingsState {
  /**
   * applied: the node reported the desired version without error; pending: it has not reported
   * it yet; failed: it tried and reported why not; unreported: its agent never reported settings.
   */
  state: "applied" | "pending" | "failed" | "unreported";
  desiredVersion: number;
  appliedVersion: number | null;
  /** When the node applied (or failed) the version it reports, ISO; null before any report. */
  appliedAt: string | null;
  /** Since when the node differs from what is desired (pending, failed), ISO. */
  differsSince: string | null;
  error: string | null;
  /** The MTU configs carry and the node's interface has, as last reported. */
  nodeMtu: number | null;
}

export function nodeSettingsState(server: NodeSettingsColumns): NodeSettingsState {
  const applied = server.appliedSettingsVersion;
  const state =
    applied === null
      ? "unreported"
      : applied === server.settingsVersion
        ? server.settingsApplyError
          ? "failed"
          : "applied"
        : "pending";
  return {
    state,
    desiredVersion: server.settingsVersion,
    appliedVersion: applied,
    appliedAt: server.appliedSettingsAt?.toISOString() ?? null,
    differsSince: state === "applied" ? null : server.settingsChangedAt.toISOString(),
    error: server.settingsApplyError,
    nodeMtu: server.appliedClientMtu,
  };
}

/** "2026-11-29 12:04 UTC". */
export const minuteUtc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** "MTU 1380", or "MTU 1380 (node still on 1280 since 2026-11-29 12:04 UTC)" while it differs. */
export function describeMtu(clientMtu: number, settings: NodeSettingsState): string {
  if (settings.nodeMtu === null || settings.nodeMtu === clientMtu || settings.state === "applied")
    return `MTU ${clientMtu}`;
  return `MTU ${clientMtu} (node still on ${settings.nodeMtu} since ${minuteUtc(settings.differsSince!)})`;
}

/** One sentence on whether the node carries the desired settings. */
export function describeNodeSettings(settings: NodeSettingsState): string {
  const version = `settings version ${settings.desiredVersion}`;
  switch (settings.state) {
    case "applied":
      return `node applied ${version} at ${minuteUtc(settings.appliedAt!)}`;
    case "pending":
      return `node on settings version ${settings.appliedVersion}, ${version} pending since ${minuteUtc(settings.differsSince!)}`;
    case "failed":
      return `node failed to apply ${version} (since ${minuteUtc(settings.differsSince!)}): ${settings.error}`;
    case "unreported":
      return `node has not reported its settings (${version})`;
  }
}
