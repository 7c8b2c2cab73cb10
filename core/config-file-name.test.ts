import { describe, expect, it } from "vitest";
import { configFileName, MAX_TUNNEL_NAME_LENGTH } from "./config-file-name.ts";

/** The tunnel name the Android and Linux WireGuard apps derive from the file name, and accept. */
const TUNNEL_NAME = /^[A-Za-z0-9_=+.-]{1,15}$/;

function tunnelNameOf(fileName: string): string {
  expect(fileName).toMatch(/\.conf$/);
  return fileName.slice(0, -".conf".length);
}

describe("config file names", () => {
  it("keeps a short brand whole: NaijaLink1.conf", () => {
    expect(configFileName("NaijaLink", 1)).toBe("NaijaLink1.conf");
    expect(configFileName("NaijaLink", 3)).toBe("NaijaLink3.conf");
  });

  it("keeps the words of a long brand that fit in 15 characters with the slot", () => {
    expect(configFileName("NaijaLink Premium Streaming", 1)).toBe("NaijaLink1.conf");
    expect(configFileName("Naija VPN Premium Streaming", 2)).toBe("NaijaVPN2.conf");
    expect(configFileName("Naija VPN Pro Streaming", 1)).toBe("NaijaVPNPro1.conf");
  });

  it("cuts a first word that alone is too long", () => {
    expect(configFileName("SuperNaijaStreamingLink", 1)).toBe("SuperNaijaStre1.conf");
  });

  it("drops spaces, punctuation and accents", () => {
    expect(configFileName("Naïja-Link™ (Lagos)!", 2)).toBe("NaijaLinkTM2.conf");
    expect(configFileName("naija.link's", 1)).toBe("naijalinks1.conf");
  });

  it("names the alternate-port variant after its port, still in 15 characters", () => {
    expect(configFileName("NaijaLink", 1, 443)).toBe("NaijaLink1-443.conf");
    expect(configFileName("NaijaLink Premium Streaming", 3, 53)).toBe("NaijaLink3-53.conf");
    expect(tunnelNameOf(configFileName("SuperNaijaStreamingLink", 2, 65535))).toMatch(TUNNEL_NAME);
    expect(configFileName("SuperNaijaStreamingLink", 2, 65535)).toBe("SuperNai2-65535.conf");
  });

  it("falls back to a neutral name when the brand has no letters or digits", () => {
    expect(configFileName("★ ☆ —", 1)).toBe("vpn1.conf");
  });

  it.each([
    "NaijaLink",
    "NaijaLink Premium Streaming",
    "The Very Best Nigerian IP Address Provider Ltd.",
    "Ñàíjá Lînk «Prémium» & Streaming/Plus",
    "x",
    "     ",
    "東京 VPN",
  ])("gives a name every WireGuard app accepts for %j", (brand) => {
    for (const slot of [1, 2, 3, 9, 10, 99, 100]) {
      const name = tunnelNameOf(configFileName(brand, slot));
      expect(name.length).toBeLessThanOrEqual(MAX_TUNNEL_NAME_LENGTH);
      expect(name).toMatch(TUNNEL_NAME);
      expect(name.endsWith(String(slot))).toBe(true);
    }
  });
});
