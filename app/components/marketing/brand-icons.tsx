import type { SimpleIcon } from "simple-icons";
import {
  siAndroid,
  siApple,
  siBitcoin,
  siIos,
  siLinux,
  siMacos,
  siMastercard,
  siNetflix,
  siPaypal,
  siSpotify,
  siVisa,
  siYoutube,
} from "simple-icons";
import { cn } from "#app/lib/utils.ts";

/** A simple-icons logo drawn inline (no hot-linked image, no request). */
export function BrandIcon({
  icon,
  label,
  className,
  colored = true,
}: {
  icon: SimpleIcon;
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
 * for removal), so these three are drawn here: the Windows four panes and plain wordmarks.
 */
function WindowsIcon({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 24 24" className={cn("size-8", className)} fill="#0078D4" aria-hidden="true">
      <path d="M0 3.4 9.8 2v9.5H0zm11-1.6L24 0v11.4H11zM0 12.5h9.8V22L0 20.6zm11 0h13V24l-13-1.8z" />
    </svg>
  );
}

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

export interface Platform {
  name: string;
  icon: (props: { className?: string }) => React.ReactElement;
}

export const PLATFORMS: Platform[] = [
  { name: "Windows", icon: WindowsIcon },
  { name: "Mac", icon: (props) => <BrandIcon icon={siMacos} {...props} /> },
  { name: "Android", icon: (props) => <BrandIcon icon={siAndroid} {...props} /> },
  { name: "iOS", icon: (props) => <BrandIcon icon={siIos} {...props} /> },
  { name: "Linux", icon: (props) => <BrandIcon icon={siLinux} colored={false} {...props} /> },
];

/** The "Trusted by thousands" row of spec §2 /pricing. */
export const SERVICE_LOGOS: Platform[] = [
  { name: "Spotify", icon: (props) => <BrandIcon icon={siSpotify} {...props} /> },
  { name: "Netflix", icon: (props) => <BrandIcon icon={siNetflix} {...props} /> },
  { name: "YouTube", icon: (props) => <BrandIcon icon={siYoutube} {...props} /> },
  { name: "DSTV", icon: (props) => <Wordmark text="DStv" color="#0072BC" {...props} /> },
  { name: "Amazon", icon: (props) => <Wordmark text="amazon" color="#111111" {...props} /> },
  { name: "Apple", icon: (props) => <BrandIcon icon={siApple} {...props} /> },
];

export const PAYMENT_ICONS = { visa: siVisa, mastercard: siMastercard, paypal: siPaypal, bitcoin: siBitcoin };

export const SERVICE_ICON_BY_NAME: Record<string, (props: { className?: string }) => React.ReactElement> =
  Object.fromEntries(SERVICE_LOGOS.map((logo) => [logo.name, logo.icon]));
