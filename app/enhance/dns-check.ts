// /check's DNS test (markup: app/components/check/dns-check.tsx). The browser
// resolves a per-visit name under the check zone, which only our nodes' resolvers answer (their
// agents report the name's first label); the page asks GET /api/check/dns until one did, or a
// minute passed (a node reports within its status interval).
import { DNS_CHECK, type DnsOutcome } from "#app/lib/dns-check.ts";

/** How long the page waits for a node's report, and how often it asks. */
export const DNS_CHECK_WINDOW_MS = 30_000;
const POLL_MS = 2_000;

function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Makes the browser (and so the device's resolver) look the name up; the request itself fails, as expected. */
function resolve(name: string): void {
  const probe = new Image();
  probe.referrerPolicy = "no-referrer";
  probe.src = `https://${name}/`;
}

async function ask(nonce: string): Promise<{ viaNode: boolean; server?: string }> {
  const response = await fetch(`/api/check/dns?nonce=${nonce}`, { cache: "no-store" });
  if (!response.ok) throw new Error(`GET /api/check/dns answered ${response.status}`);
  return (await response.json()) as { viaNode: boolean; server?: string };
}

const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));

export async function runDnsCheck(root: HTMLElement): Promise<void> {
  const zone = root.dataset.zone;
  if (!zone) return;
  const show = (name: DnsOutcome) => {
    for (const element of root.querySelectorAll<HTMLElement>(`[${DNS_CHECK.outcome}]`))
      element.hidden = element.getAttribute(DNS_CHECK.outcome) !== name;
    if (name === "no")
      for (const advice of root.querySelectorAll<HTMLElement>(`[${DNS_CHECK.advice}]`)) advice.hidden = false;
  };
  show("running");
  const nonce = newNonce();
  resolve(`${nonce}.${zone}`);
  const deadline = Date.now() + DNS_CHECK_WINDOW_MS;
  try {
    for (;;) {
      const answer = await ask(nonce);
      if (answer.viaNode) {
        const slot = root.querySelector<HTMLElement>(`[${DNS_CHECK.server}]`);
        if (slot) slot.textContent = answer.server ?? "";
        show("yes");
        return;
      }
      if (Date.now() >= deadline) {
        show("no");
        return;
      }
      await wait(POLL_MS);
    }
  } catch {
    show("failed");
  }
}
