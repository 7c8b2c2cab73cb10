import fs from "node:fs";
import net from "node:net";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { startTestServer, type TestServer } from "./app.ts";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** Debian's Chromium, headless; a browser is never downloaded. Fails loudly when it is missing. */
export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `chromium not found at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium)`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/** Waits until React has hydrated, so clicks reach their handlers. */
export async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(() => document.documentElement.dataset.hydrated === "true");
}

/**
 * Waits until the page is a static page's document, enhanced: after a client-side navigation
 * from a hydrated page, the old document (React's, hydrated too) stays until the new one loads.
 */
export async function waitForStaticDocument(page: Page): Promise<void> {
  await page.waitForFunction(
    () => !("__reactRouterContext" in window) && document.documentElement.dataset.hydrated === "true",
  );
}

/** A free TCP port on 127.0.0.1 (for a server that must know its own address before it starts). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export type BrowserAppOptions = NonNullable<Parameters<typeof startTestServer>[0]> & {
  /**
   * The server listens on a port chosen first and its PUBLIC_URL is its own address (the
   * default): the app builds every address it hands out from PUBLIC_URL (the built-in
   * checkout's among them), and better-auth accepts requests from PUBLIC_URL only.
   */
  ownUrl?: boolean;
};

/**
 * The built app and a headless Chromium, started before the tests of the enclosing describe (or
 * file) and stopped after them. Read `server` and `browser` inside tests and hooks registered
 * after this call (they are set by then); after-hooks registered later run before the stop.
 */
export function useBrowserApp(options: BrowserAppOptions = {}): {
  readonly server: TestServer;
  readonly browser: Browser;
} {
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    const { ownUrl = true, ...serverOptions } = options;
    if (ownUrl) {
      const port = await freePort();
      serverOptions.env = {
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        ...serverOptions.env,
      };
    }
    [server, browser] = await Promise.all([startTestServer(serverOptions), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  return {
    get server() {
      if (!server) throw new Error("The test server is not started yet (use it inside a test)");
      return server;
    },
    get browser() {
      if (!browser) throw new Error("Chromium is not started yet (use it inside a test)");
      return browser;
    },
  };
}
