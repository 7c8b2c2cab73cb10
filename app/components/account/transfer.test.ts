import { describe, expect, it } from "vitest";
import { transferDetail, transferLabel } from "./transfer.ts";

describe("a device's data this period, as the account page says it", () => {
  it("adds both directions in the largest decimal unit, with one decimal at most", () => {
    expect(transferLabel({ downloadedBytes: 1_100_000_000, uploadedBytes: 123_000_000 })).toBe(
      "1.2 GB this period",
    );
    expect(transferLabel({ downloadedBytes: 850_000, uploadedBytes: 0 })).toBe("850 kB this period");
    expect(transferLabel({ downloadedBytes: 999_960, uploadedBytes: 0 })).toBe("1 MB this period");
    expect(transferLabel({ downloadedBytes: 0, uploadedBytes: 0 })).toBe("0 kB this period");
    expect(transferLabel({ downloadedBytes: 2_500_000_000_000, uploadedBytes: 0 })).toBe(
      "2.5 TB this period",
    );
  });

  it("names each direction in the detail", () => {
    expect(transferDetail({ downloadedBytes: 1_100_000_000, uploadedBytes: 85_300_000 })).toBe(
      "1.1 GB downloaded, 85.3 MB uploaded",
    );
  });
});
