/**
 * The WireGuard apps for Android and Linux take the tunnel name from the file name and refuse
 * one longer than 15 characters (or with characters outside letters, digits and `_=+.-`).
 */
export const MAX_TUNNEL_NAME_LENGTH = 15;

const FALLBACK_PRODUCT = "vpn";

/**
 * The name a device's config is saved under, `{product}{slot}.conf` (spec), with a product part
 * every WireGuard app accepts: the brand's letters and digits (accents dropped), as many of its
 * words as fit in 15 characters together with the slot, the first word cut when even it does not
 * fit. "NaijaLink Premium Streaming", slot 1 → `NaijaLink1.conf`. The server's download header,
 * the e-mail attachment and the success page's save name all come from here. The variant for an
 * alternate port adds it (`NaijaLink1-443.conf`), so both tunnels can sit side by side in the app.
 */
export function configFileName(brandName: string, slot: number, port?: number): string {
  const slotText = port === undefined ? String(slot) : `${slot}-${port}`;
  const room = Math.max(1, MAX_TUNNEL_NAME_LENGTH - slotText.length);
  const words = brandName
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  let product = "";
  for (const word of words) {
    if (product.length + word.length > room) break;
    product += word;
  }
  if (!product) product = (words[0] ?? FALLBACK_PRODUCT).slice(0, room);
  return `${product}${slotText}.conf`;
}
