import { describe, expect, it } from "vitest";
import { regionLabel } from "./locations.ts";

describe("a server's region as a buyer reads it", () => {
  it("names the Nigerian city of an ng- region", () => {
    expect(regionLabel("ng-lagos")).toBe("Lagos, Nigeria");
    expect(regionLabel("ng-port-harcourt")).toBe("Port Harcourt, Nigeria");
  });

  it("leaves any other region as it is", () => {
    expect(regionLabel("Lagos")).toBe("Lagos");
    expect(regionLabel("ng-")).toBe("ng-");
  });
});
