import { describe, expect, it } from "vitest";
import { createPeerChangeWatches } from "./peer-changes.ts";

const LONG = 60_000;

describe("held node polls waiting for a server's change", () => {
  it("does not miss a change notified between the watch starting and the wait", async () => {
    const watches = createPeerChangeWatches();
    const watch = watches.feed.watch("server-a");
    watches.notify("server-a");
    expect(await watch.changed(LONG)).toBe(true);
    watch.stop();
  });

  it("wakes the watches of the changed server only", async () => {
    const watches = createPeerChangeWatches();
    const onA = watches.feed.watch("server-a");
    const onB = watches.feed.watch("server-b");
    const waiting = onA.changed(LONG);
    watches.notify("server-a");
    expect(await waiting).toBe(true);
    expect(await onB.changed(0)).toBe(false);
    onA.stop();
    watches.notify("server-b");
    expect(await onB.changed(LONG)).toBe(true);
  });

  it("wakes every watch after a lost listening connection came back", async () => {
    const watches = createPeerChangeWatches();
    const held = ["a", "b"].map((server) => watches.feed.watch(server).changed(LONG));
    watches.notifyAll();
    expect(await Promise.all(held)).toEqual([true, true]);
  });

  it("answers a held poll 'unchanged' at once when its client goes away or the app stops", async () => {
    const watches = createPeerChangeWatches();
    const client = new AbortController();
    const aborted = watches.feed.watch("server-a").changed(LONG, client.signal);
    client.abort();
    expect(await aborted).toBe(false);
    const held = watches.feed.watch("server-a").changed(LONG);
    watches.close();
    expect(await held).toBe(false);
    expect(await watches.feed.watch("server-a").changed(LONG)).toBe(false);
  });
});
