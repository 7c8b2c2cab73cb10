// The built server with a blog worth measuring: the three sample posts, a long guide with a
// table and code, and enough short posts for a second list page (12 in all; 10 per page).
// The first start migrates the throw-away DATA_DIR and seeds the samples; the posts are then
// written into its PGlite database, and the server started again on it.
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startProductionServer } from "./production-server.mjs";

export const LONG_POST_SLUG = "wireguard-on-every-device";
export const SAMPLE_POST_SLUG = "watch-dstv-abroad";

const DAY_MS = 24 * 60 * 60 * 1000;

const DEVICES = [
  ["iPhone / iPad", "WireGuard (App Store)", "Scan the QR code"],
  ["Android phone or TV", "WireGuard (Play Store)", "Scan the QR code or import the file"],
  ["Windows", "WireGuard for Windows", "Import tunnel(s) from file"],
  ["macOS", "WireGuard (Mac App Store)", "Import tunnel(s) from file"],
  ["Linux", "wireguard-tools", "Copy the file to /etc/wireguard/"],
  ["Router (OpenWrt)", "luci-proto-wireguard", "Paste the keys into the interface"],
];

function longPost() {
  const sections = [
    "A NaijaLink plan is one WireGuard tunnel: a small configuration file with a private key, the address your device gets inside the tunnel and the server it talks to. This guide walks through every device we support, explains what each line of the file does, and collects the answers to the questions our support team hears most.",
    "## Which app on which device",
    "| Device | App | How to add the tunnel |",
    "| --- | --- | --- |",
    ...DEVICES.map((row) => `| ${row.join(" | ")} |`),
    "",
    "## What the configuration file says",
    "Your file looks like this (the keys here are placeholders; yours are unique and never shown to anyone else):",
    "```ini\n[Interface]\nPrivateKey = <your private key>\nAddress = 10.66.0.23/32\nDNS = 10.66.0.1\n\n[Peer]\nPublicKey = <the server's public key>\nEndpoint = lagos-1.example.net:51820\nAllowedIPs = 0.0.0.0/0, ::/0\nPersistentKeepalive = 25\n```",
    "`AllowedIPs = 0.0.0.0/0, ::/0` sends all of the device's traffic through Nigeria, which is what streaming apps check. `PersistentKeepalive` keeps the tunnel open behind home routers that forget idle connections.",
    "## Linux from the command line",
    "```bash\nsudo apt install wireguard-tools\nsudo install -m 600 naijalink.conf /etc/wireguard/naijalink.conf\nsudo wg-quick up naijalink\n# check the handshake and the traffic counters\nsudo wg show naijalink\n```",
    "To start the tunnel with the computer, enable the systemd unit: `sudo systemctl enable wg-quick@naijalink`.",
  ];
  const troubleshooting = [
    [
      "The app connects but nothing loads",
      "Check the date and time on the device: WireGuard's handshake fails silently when the clock is far off.",
    ],
    [
      "Streaming says I am abroad",
      "Close the streaming app completely and open it again after the tunnel is on; some apps remember the country they saw first.",
    ],
    [
      "The tunnel is slow in the evening",
      "Lower the stream quality once; it adapts again after a minute. Our status page shows planned maintenance.",
    ],
    [
      "I changed phones",
      "Download the configuration again from your account page; the same file works on the new phone.",
    ],
  ];
  for (let round = 0; round < 3; round += 1) {
    sections.push(`## Troubleshooting, part ${round + 1}`);
    for (const [question, answer] of troubleshooting) {
      sections.push(
        `### ${question}`,
        `${answer} If that does not help, write to support with the time it happened and the device you use, and we will look at the server's logs for your tunnel.`,
      );
    }
  }
  return sections.join("\n\n");
}

function posts(now) {
  const short = Array.from({ length: 8 }, (_, index) => ({
    title: `NaijaLink news, issue ${index + 1}`,
    slug: `news-${index + 1}`,
    content: `What changed this month at NaijaLink.\n\n- New server capacity in Lagos\n- Faster support replies\n\nThanks for streaming with us, issue ${index + 1}.`,
    publishedAt: new Date(now - (20 + index) * DAY_MS),
  }));
  return [
    {
      title: "WireGuard on Every Device: The Complete Guide",
      slug: LONG_POST_SLUG,
      content: longPost(),
      publishedAt: new Date(now - 5 * DAY_MS),
    },
    ...short,
  ];
}

/** Starts the built server with the blog above; returns startProductionServer's { base, stop() }. */
export async function startProductionServerWithBlog() {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-bench-blog-"));
  try {
    const first = await startProductionServer({ dataDir, env: { SEED_SAMPLE_CONTENT: "true" } });
    await first.stop();
    const client = new PGlite(path.join(dataDir, "pglite"), { extensions: { pg_trgm } });
    try {
      for (const post of posts(Date.now())) {
        await client.query(
          `insert into blog_posts (title, slug, content, status, published_at, created_at, updated_at)
           values ($1, $2, $3, 'published', $4, $4, $4)`,
          [post.title, post.slug, post.content, post.publishedAt],
        );
      }
    } finally {
      await client.close();
    }
    const server = await startProductionServer({ dataDir });
    return {
      ...server,
      stop: async () => {
        await server.stop();
        await fs.rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await fs.rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
