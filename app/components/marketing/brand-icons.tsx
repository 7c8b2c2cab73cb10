import { BRAND_ICONS, type BrandIconData } from "./brand-icon-data.ts";
import { cn } from "#app/lib/utils.ts";

/** A logo drawn inline from its generated path data (no hot-linked image, no request). */
export function BrandIcon({
  icon,
  label,
  className,
  colored = true,
}: {
  icon: BrandIconData;
  /** Accessible name; omit when a visible text already names it. */
  label?: string;
  className?: string;
  colored?: boolean;
}) {
  return (
    <svg
      viewBox="0 0 24 24"
      className={cn("size-8", className)}
      fill={colored ? `#${icon.hex}` : "currentColor"}
      role={label ? "img" : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
      focusable="false"
    >
      {label ? <title>{label}</title> : null}
      <path d={icon.path} />
    </svg>
  );
}

/**
 * simple-icons no longer ships Microsoft's, Amazon's or MultiChoice's marks (their owners asked
 * for removal), so these are drawn by hand: plain wordmarks here, the Windows four panes in
 * icon-sources.ts.
 */
function Wordmark({ text, color }: { text: string; color: string; className?: string }) {
  // Wider than a square icon, so it keeps its own size wherever it is placed.
  return (
    <svg viewBox="0 0 64 40" className="h-10 w-16 shrink-0" aria-hidden="true">
      <text
        x="32"
        y="26"
        textAnchor="middle"
        textLength="60"
        lengthAdjust="spacingAndGlyphs"
        fontFamily="Arial, Helvetica, sans-serif"
        fontWeight="700"
        fontSize="18"
        fill={color}
      >
        {text}
      </text>
    </svg>
  );
}

export interface Logo {
  name: string;
  icon: (props: { className?: string }) => React.ReactElement;
}

export interface Platform {
  name: string;
  /** File in public/icons (written by scripts/generate-icons.ts). */
  file: string;
}

/**
 * The supported-platforms row. Drawn from cached files in public/icons rather than inline: their
 * path data (Tux alone is 5.3 KB) would otherwise sit in every page's HTML and in the JS bundle.
 */
export const PLATFORMS: Platform[] = [
  { name: "Windows", file: "windows.svg" },
  { name: "Mac", file: "macos.svg" },
  { name: "Android", file: "android.svg" },
  { name: "iOS", file: "ios.svg" },
  { name: "Linux", file: "linux.svg" },
];

/** The "Trusted by thousands" row of /pricing (docs/product.md §2.4). */
export const SERVICE_LOGOS: Logo[] = [
  { name: "Spotify", icon: (props) => <BrandIcon icon={BRAND_ICONS.spotify} {...props} /> },
  { name: "Netflix", icon: (props) => <BrandIcon icon={BRAND_ICONS.netflix} {...props} /> },
  { name: "YouTube", icon: (props) => <BrandIcon icon={BRAND_ICONS.youtube} {...props} /> },
  { name: "DSTV", icon: (props) => <Wordmark text="DStv" color="#0072BC" {...props} /> },
  { name: "Amazon", icon: (props) => <Wordmark text="amazon" color="#111111" {...props} /> },
  { name: "Apple", icon: (props) => <BrandIcon icon={BRAND_ICONS.apple} {...props} /> },
];

export const PAYMENT_ICONS = {
  visa: BRAND_ICONS.visa,
  mastercard: BRAND_ICONS.mastercard,
  paypal: BRAND_ICONS.paypal,
  bitcoin: BRAND_ICONS.bitcoin,
};

export const SERVICE_ICON_BY_NAME: Record<string, (props: { className?: string }) => React.ReactElement> =
  Object.fromEntries(SERVICE_LOGOS.map((logo) => [logo.name, logo.icon]));
