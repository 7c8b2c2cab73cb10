import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { platformIconFiles } from "./platform-icon-files.ts";
import { PLATFORMS } from "./brand-icons.tsx";

const publicIcons = path.resolve(import.meta.dirname, "../../../public/icons");

describe("platform icon files", () => {
  it("public/icons holds the current simple-icons drawing of every platform (regenerate with npx tsx scripts/generate-platform-icons.ts)", () => {
    for (const [name, svg] of Object.entries(platformIconFiles())) {
      expect(fs.readFileSync(path.join(publicIcons, name), "utf8"), name).toBe(svg);
    }
  });

  it("every platform of the row points at one of those files", () => {
    const files = Object.keys(platformIconFiles());
    expect(PLATFORMS.map((platform) => platform.name)).toEqual(["Windows", "Mac", "Android", "iOS", "Linux"]);
    for (const platform of PLATFORMS) expect(files).toContain(platform.file);
  });
});
