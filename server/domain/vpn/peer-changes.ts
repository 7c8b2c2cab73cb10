import { eq, lt, sql } from "drizzle-orm";
import { queryRows, type Database, type DatabaseKind, type Executor } from "#server/db/client.ts";
import { listenForNotifications } from "#server/db/notifications.ts";
import { vpnPeerChanges, vpnPeerVersions } from "#server/db/schema/index.ts";
import type { Logger } from "#server/logger.ts";

// The node change feed. Triggers (migration 0008) log, per VPN server, the public
// keys each write touched under a new version and NOTIFY `vpn_peer_changes` with the server's id;
// this module reads the log and wakes the node polls waiting on a server.

export const PEER_CHANGES_CHANNEL = "vpn_peer_changes";
/** Beyond this many changed keys a node is sent the full set instead. */
export const MAX_CHANGED_KEYS = 1_000;
/** Changes older than this are pruned; a node further behind gets the full set. */
export const PEER_CHANGE_RETENTION_MS = 60 * 60_000;

export async function currentPeerVersion(executor: Executor, serverId: string): Promise<number> {
  const [row] = await executor
    .select({ version: vpnPeerVersions.version })
    .from(vpnPeerVersions)
    .where(eq(vpnPeerVersions.serverId, serverId));
  return row?.version ?? 0;
}

export type PeerChangesSince =
  | { state: "current"; version: number }
  | { state: "changed"; version: number; publicKeys: string[] }
  /** A version this server never had, older than the log keeps, or too many changes: send all. */
  | { state: "unknown" };

/**
 * The keys changed on a server since `since` (the version a node applied), read in one
 * statement so the version and the keys belong together. Keys of later versions may come too
 * (the node then gets them twice, which is harmless: an answer is the keys' current state).
 */
export async function peerChangesSince(
  executor: Executor,
  serverId: string,
  since: string,
): Promise<PeerChangesSince> {
  const known = /^[0-9]{1,9}$/.test(since) ? Number(since) : -1;
  if (known < 0) return { state: "unknown" };
  const [row] = await queryRows<{ current: number; oldest: number | null; keys: string[] }>(
    executor,
    sql`select
      coalesce((select version from ${vpnPeerVersions} where server_id = ${serverId}), 0) as current,
      (select min(version) from ${vpnPeerChanges} where server_id = ${serverId}) as oldest,
      array(select distinct public_key from ${vpnPeerChanges}
        where server_id = ${serverId} and version > ${known} limit ${MAX_CHANGED_KEYS + 1}) as keys`,
  );
  const current = Number(row!.current);
  if (known === current) return { state: "current", version: current };
  // Every version after `known` must still be in the log: the oldest kept is at most known + 1.
  const complete = row!.oldest !== null && Number(row!.oldest) <= known + 1;
  if (known > current || !complete || row!.keys.length > MAX_CHANGED_KEYS) return { state: "unknown" };
  return { state: "changed", version: current, publicKeys: row!.keys };
}

/**
 * A new version of a server's peer set with no key changed, for a change of the server itself
 * (its listen port): the node's held poll wakes and re-reads the server's settings.
 */
export async function bumpPeerVersion(executor: Executor, serverId: string): Promise<void> {
  await executor.execute(sql`
    insert into ${vpnPeerVersions} as v (server_id, version) values (${serverId}, 1)
    on conflict (server_id) do update set version = v.version + 1`);
  await executor.execute(sql`select pg_notify(${PEER_CHANGES_CHANNEL}, ${serverId})`);
}

/**
 * Drops changes logged before `before`, whole versions from the oldest up per server, so the
 * versions kept stay contiguous (a node asking from before them gets the full set).
 */
export async function prunePeerChanges(executor: Executor, before: Date): Promise<number> {
  const result = (await executor.execute(sql`
    delete from ${vpnPeerChanges} c
    using (
      select server_id, max(version) as upto from ${vpnPeerChanges}
      where ${lt(vpnPeerChanges.changedAt, before)} group by server_id
    ) old
    where c.server_id = old.server_id and c.version <= old.upto`)) as unknown as {
    rowCount?: number;
    affectedRows?: number;
  };
  return result.rowCount ?? result.affectedRows ?? 0;
}

export interface PeerChangeWatch {
  /**
   * Resolves true when the watched server changed since the watch began or the last call
   * (a NOTIFY, or a reconnection that may have missed one), false after `timeoutMs` or an abort.
   */
  changed(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  stop(): void;
}

export interface PeerChangeFeed {
  /** Start watching before reading the version, so a change committed in between is not missed. */
  watch(serverId: string): PeerChangeWatch;
}

/** The in-process side of the feed: watches per server, woken by `notify`. */
export function createPeerChangeWatches() {
  const watchers = new Map<string, Set<(changed: boolean) => void>>();
  let closed = false;
  const everyWatcher = () => [...watchers.values()].flatMap((set) => [...set]);
  const feed: PeerChangeFeed = {
    watch(serverId) {
      let pending = false;
      let wake: (() => void) | undefined;
      const listener = (changed: boolean) => {
        pending ||= changed;
        wake?.();
      };
      const set = watchers.get(serverId) ?? new Set();
      watchers.set(serverId, set.add(listener));
      return {
        async changed(timeoutMs, signal) {
          if (!pending && !closed && !signal?.aborted) {
            await new Promise<void>((resolve) => {
              const done = () => {
                clearTimeout(timer);
                signal?.removeEventListener("abort", done);
                wake = undefined;
                resolve();
              };
              const timer = setTimeout(done, timeoutMs);
              signal?.addEventListener("abort", done, { once: true });
              wake = done;
            });
          }
          const result = pending;
          pending = false;
          return result;
        },
        stop() {
          set.delete(listener);
          if (set.size === 0 && watchers.get(serverId) === set) watchers.delete(serverId);
        },
      };
    },
  };
  return {
    feed,
    notify(serverId: string) {
      for (const listener of watchers.get(serverId) ?? []) listener(true);
    },
    /** After a lost connection: a change may have been missed anywhere. */
    notifyAll() {
      for (const listener of everyWatcher()) listener(true);
    },
    /** At shutdown: every held poll answers "unchanged" now. */
    close() {
      closed = true;
      for (const listener of everyWatcher()) listener(false);
    },
  };
}

export interface RunningPeerChangeFeed {
  feed: PeerChangeFeed;
  close(): Promise<void>;
}

/** LISTENs for the triggers' NOTIFY (pruning old changes is a scheduled job: server/services.ts). */
export async function startPeerChangeFeed(deps: {
  db: Database;
  kind: DatabaseKind;
  logger: Logger;
}): Promise<RunningPeerChangeFeed> {
  const watches = createPeerChangeWatches();
  const listener = await listenForNotifications(deps.db, deps.kind, PEER_CHANGES_CHANNEL, {
    onNotify: (serverId) => watches.notify(serverId),
    onResumed: () => {
      deps.logger.info("listening for VPN peer changes again");
      watches.notifyAll();
    },
    onError: (error) => deps.logger.warn({ err: error }, "the VPN peer change listener lost its connection"),
  });
  return {
    feed: watches.feed,
    async close() {
      watches.close();
      await listener.close();
    },
  };
}
