import { describe, expect, it } from "vitest";
import { serverCondition, type ServerStateInput } from "./server-state.ts";

const now = new Date("2026-11-25T12:00:00Z");
const real: ServerStateInput = {
  status: "active",
  development: false,
  keyRegistered: true,
  lastSeenAt: new Date(now.getTime() - 10_000),
  liveDevices: 3,
  capacity: 254,
};
const condition = (changes: Partial<ServerStateInput>, realNodeRegistered = true) => {
  const { state, takesDevices } = serverCondition({ ...real, ...changes }, { now, realNodeRegistered });
  return [state, takesDevices];
};

describe("what a VPN server is doing", () => {
  it.each([
    ["a reporting node with room", {}, ["online", true]],
    ["a node silent for 2 minutes", { lastSeenAt: new Date(now.getTime() - 120_000) }, ["silent", true]],
    ["a node never registered", { keyRegistered: false, lastSeenAt: null }, ["awaiting-node", false]],
    ["a key given at add-server, agent not yet reporting", { lastSeenAt: null }, ["awaiting-node", true]],
    ["every address in use", { liveDevices: 254 }, ["full", false]],
    ["draining", { status: "draining" as const }, ["draining", false]],
    ["disabled", { status: "disabled" as const }, ["disabled", false]],
  ])("%s", (_name, changes, expected) => {
    expect(condition(changes)).toEqual(expected);
  });

  it("the development server sells until a real node registers, then is retired for good", () => {
    const development = { development: true, lastSeenAt: null };
    expect(condition(development, false)).toEqual(["placeholder", true]);
    expect(condition(development, true)).toEqual(["retired", false]);
    expect(condition({ ...development, status: "draining" }, false)).toEqual(["retired", false]);
  });

  it("explains each state with what to do", () => {
    const { explanation } = serverCondition(
      { ...real, keyRegistered: false },
      { now, realNodeRegistered: true },
    );
    expect(explanation).toContain("run the agent's setup");
  });
});
