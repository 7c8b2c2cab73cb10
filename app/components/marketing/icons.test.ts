import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BRAND_ICONS } from "./brand-icon-data.ts";
import { brandIconData, platformIconFiles } from "./icon-sources.ts";
import { PLATFORMS } from "./brand-icons.tsx";

const publicIcons = path.resolve(import.meta.dirname, "../../../public/icons");
const REGENERATE = "regenerate with npx tsx scripts/generate-icons.ts";

describe("icons generated from simple-icons", () => {
  it(`public/icons holds the current drawing of every platform (${REGENERATE})`, () => {
    for (const [name, svg] of Object.entries(platformIconFiles())) {
      expect(fs.readFileSync(path.join(publicIcons, name), "utf8"), name).toBe(svg);
    }
  });

  it(`brand-icon-data.ts holds the current drawing of every inline logo (${REGENERATE})`, () => {
    expect(BRAND_ICONS).toEqual(brandIconData());
  });

  it("every platform of the row points at one of those files", () => {
    const files = Object.keys(platformIconFiles());
    expect(PLATFORMS.map((platform) => platform.name)).toEqual(["Windows", "Mac", "Android", "iOS", "Linux"]);
    for (const platform of PLATFORMS) expect(files).toContain(platform.file);
  });

  it("the app's code never imports simple-icons (it is a dev dependency)", () => {
    const importers = fs
      .readdirSync(path.resolve(import.meta.dirname, "../../.."), { recursive: true, encoding: "utf8" })
      .filter((file) => /^(app|server|agent)\/.*\.tsx?$/.test(file) && !file.endsWith(".test.ts"))
      .filter((file) => !file.endsWith("icon-sources.ts"))
      .filter((file) =>
        fs
          .readFileSync(path.resolve(import.meta.dirname, "../../..", file), "utf8")
          .includes('from "simple-icons"'),
      );
    expect(importers).toEqual([]);
  });
});
