import { describe, expect, it } from "vitest";
import { addDeviceRefusal, addDeviceRefusalMessage, type AddDeviceState } from "./device-actions.ts";

const proMonthly: AddDeviceState = {
  usable: true,
  deviceLimit: 3,
  liveDevices: 1,
  mayClaimSlot: true,
  roomForDevice: true,
};

describe("which states offer Add a device", () => {
  it("offers it to the owner of a usable plan with a free slot while a server has room", () => {
    expect(addDeviceRefusal(proMonthly)).toBeNull();
    expect(addDeviceRefusal({ ...proMonthly, liveDevices: 2 })).toBeNull();
    expect(addDeviceRefusal({ ...proMonthly, liveDevices: 0 })).toBeNull();
  });

  it("does not offer it at the device limit (3 of 3), whoever asks", () => {
    expect(addDeviceRefusal({ ...proMonthly, liveDevices: 3 })).toBe("limit");
    expect(addDeviceRefusal({ ...proMonthly, liveDevices: 3, mayClaimSlot: false })).toBe("limit");
  });

  it("does not offer it to a browser that may not claim a slot (not the one that paid, not signed in)", () => {
    expect(addDeviceRefusal({ ...proMonthly, mayClaimSlot: false })).toBe("other-browser");
  });

  it("does not offer it while no VPN server has room", () => {
    expect(addDeviceRefusal({ ...proMonthly, roomForDevice: false })).toBe("no-room");
  });

  it("does not offer it on an ended plan; a one-device plan only while its one slot is free", () => {
    expect(addDeviceRefusal({ ...proMonthly, usable: false, liveDevices: 0 })).toBe("ended");
    expect(addDeviceRefusal({ ...proMonthly, deviceLimit: 1, liveDevices: 1 })).toBe("limit");
    expect(addDeviceRefusal({ ...proMonthly, deviceLimit: 1, liveDevices: 0 })).toBeNull();
  });
});

describe("what the page says instead", () => {
  it("names /account on the success page only, where it is the way to free a slot or to add one", () => {
    expect(addDeviceRefusalMessage("limit", 3, "success")).toContain("at /account.");
    expect(addDeviceRefusalMessage("limit", 3, "account")).not.toContain("/account");
    expect(addDeviceRefusalMessage("other-browser", 3, "success")).toContain("/account");
    expect(addDeviceRefusalMessage("no-room", 3, "account")).toMatch(/No VPN server has room/);
  });

  it("says nothing for a one-device plan's one device or an ended plan (the page already shows it)", () => {
    expect(addDeviceRefusalMessage("limit", 1, "success")).toBeNull();
    expect(addDeviceRefusalMessage("ended", 3, "account")).toBeNull();
  });
});
