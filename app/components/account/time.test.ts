import { describe, expect, it } from "vitest";
import { connectionLabel } from "./time.ts";

describe("a device's last handshake, as the account page says it", () => {
  const now = "2026-11-23T12:00:00.000Z";
  const ago = (seconds: number) => new Date(Date.parse(now) - seconds * 1000).toISOString();

  it("says how long ago the device connected, in the largest whole unit", () => {
    expect(connectionLabel(ago(3), now)).toBe("connected just now");
    expect(connectionLabel(ago(45), now)).toBe("connected 45 s ago");
    expect(connectionLabel(ago(150), now)).toBe("connected 2 min ago");
    expect(connectionLabel(ago(3 * 3600 + 59), now)).toBe("connected 3 h ago");
    expect(connectionLabel(ago(2 * 86_400), now)).toBe("connected 2 d ago");
  });

  it("says a device that never connected is not connected yet", () => {
    expect(connectionLabel(null, now)).toBe("not connected yet");
  });
});
