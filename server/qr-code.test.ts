import QRCode from "qrcode";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { qrCodePng, qrCodeSvg } from "./qr-code.ts";

const CONFIG = `[Interface]
PrivateKey = ${"A".repeat(43)}=
Address = 10.8.0.23/32, fd42:42:42::23/128
DNS = 10.8.0.1

[Peer]
PublicKey = ${"B".repeat(43)}=
AllowedIPs = 0.0.0.0/0, ::/0
Endpoint = vpn1.naijalink.example:51820
`;

describe("the e-mailed QR code", () => {
  it("is a PNG that an independent decoder reads as the QR code's modules, 4 px each, in a 2-module white margin", async () => {
    const png = PNG.sync.read(await qrCodePng(CONFIG));
    const { modules } = QRCode.create(CONFIG, { errorCorrectionLevel: "M" });
    const margin = 2;
    const scale = 4;
    expect(png.width).toBe((modules.size + 2 * margin) * scale);
    expect(png.height).toBe(png.width);
    const mismatched: string[] = [];
    for (let y = 0; y < png.height; y++) {
      for (let x = 0; x < png.width; x++) {
        const row = Math.floor(y / scale) - margin;
        const column = Math.floor(x / scale) - margin;
        const inside = row >= 0 && column >= 0 && row < modules.size && column < modules.size;
        const dark = inside && modules.get(row, column) === 1;
        const red = png.data[(y * png.width + x) * 4]!;
        if (red !== (dark ? 0 : 255)) mismatched.push(`${x},${y}`);
      }
    }
    expect(mismatched.slice(0, 5)).toEqual([]);
  });

  it("has as many modules as the SVG of the same text (same error correction and margin)", async () => {
    const svg = await qrCodeSvg(CONFIG);
    const png = PNG.sync.read(await qrCodePng(CONFIG));
    const viewBox = /viewBox="0 0 (\d+) (\d+)"/.exec(svg);
    expect(Number(viewBox?.[1]) * 4).toBe(png.width);
  });
});
