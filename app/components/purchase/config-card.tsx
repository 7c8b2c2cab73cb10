import { Download, QrCode } from "lucide-react";
import { useEffect, useState, type MouseEvent, type ReactNode } from "react";
import { toast } from "sonner";
import { Button, type ButtonProps } from "#app/components/ui/button.tsx";
import { activatingFetchHeaders } from "#core/config-activation.ts";
import { configFileName } from "#core/config-file-name.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
// Type-only: erased from the browser bundle.
import type { AlternateOffer } from "#server/domain/vpn/config-file.ts";

export interface IssuedConfig {
  downloadUrl: string;
  configSlot: number;
  /** The same device on its server's alternate port, when it has one. */
  alternate?: AlternateOffer | null;
}

/**
 * The download URL is absolute (PUBLIC_URL, as in the e-mail); the page fetches the same path
 * on its own origin so the Content-Security-Policy (connect-src 'self') lets it through.
 */
export function sameOriginUrl(downloadUrl: string): string {
  try {
    const url = new URL(downloadUrl, window.location.href);
    return url.pathname.startsWith("/api/configs/") ? `${url.pathname}${url.search}` : url.toString();
  } catch {
    return downloadUrl;
  }
}

/** The QR code's address beside a config link (`?port=` stays a query: `…/qr.svg?port=443`). */
export function qrUrlOf(downloadUrl: string): string {
  const [path, query] = sameOriginUrl(downloadUrl).split("?");
  return `${path}/qr.svg${query ? `?${query}` : ""}`;
}

/**
 * A config link as this site's own path (`/api/configs/…`), on the server too: what the page's
 * links point at, so they work without JavaScript.
 */
export function configPathOf(downloadUrl: string): string {
  try {
    const url = new URL(downloadUrl, "http://localhost");
    return url.pathname.startsWith("/api/configs/") ? `${url.pathname}${url.search}` : downloadUrl;
  } catch {
    return downloadUrl;
  }
}

/** The QR code's path beside a config link, on the server too (`qrUrlOf` reads the browser's address). */
export function qrPathOf(downloadUrl: string): string {
  const [path, query] = configPathOf(downloadUrl).split("?");
  return `${path}/qr.svg${query ? `?${query}` : ""}`;
}

/**
 * A config's download: a real link (`<a href download>`), which the browser follows without
 * JavaScript (the file arrives; it counts as activated at the first handshake). With JavaScript
 * the page fetches it itself with the activation header and says so in a toast.
 */
export function DownloadConfigLink({
  downloadUrl,
  fileName,
  size,
  variant,
  className,
  onSaved,
  children,
}: {
  downloadUrl: string;
  fileName: string;
  size?: ButtonProps["size"];
  variant?: ButtonProps["variant"];
  className?: string;
  onSaved?: () => void;
  children: ReactNode;
}) {
  return (
    <Button asChild size={size} variant={variant} className={className}>
      <a
        role="button"
        href={configPathOf(downloadUrl)}
        download={fileName}
        onClick={async (event: MouseEvent) => {
          event.preventDefault();
          if (await saveConfig(downloadUrl, fileName)) onSaved?.();
        }}
      >
        {children}
      </a>
    </Button>
  );
}

/** Fetches the config with the activation header and saves it as `fileName`; true once saved. */
export async function saveConfig(downloadUrl: string | null, fileName: string): Promise<boolean> {
  if (!downloadUrl) {
    toast.error("Download Unavailable", { description: "Please contact support for assistance." });
    return false;
  }
  try {
    const response = await fetch(sameOriginUrl(downloadUrl), {
      cache: "no-store",
      headers: activatingFetchHeaders,
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const blob = new Blob([await response.text()], { type: "text/plain" });
    const objectUrl = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = objectUrl;
    link.download = fileName;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(objectUrl), 10_000);
    toast.success("Download Started", { description: `${fileName} is being saved to your device.` });
    return true;
  } catch {
    toast.error("Download Failed", {
      description: "Unable to download the file. Please try again or contact support.",
    });
    return false;
  }
}

/** One device's config: the .conf download and, on request, its QR code (the same text). */
export function ConfigCard({ config, multiDevice }: { config: IssuedConfig; multiDevice: boolean }) {
  const { brandName } = usePublicConfig();
  const [showQr, setShowQr] = useState(false);
  const fileName = configFileName(brandName, config.configSlot);
  return (
    <div className="flex flex-col gap-4 rounded-lg border p-4" data-testid={`config-${config.configSlot}`}>
      {multiDevice ? <h3 className="font-semibold">Device {config.configSlot}</h3> : null}
      <div className="flex flex-wrap gap-3">
        <DownloadConfigLink downloadUrl={config.downloadUrl} fileName={fileName}>
          <Download aria-hidden="true" />
          Download .conf File
        </DownloadConfigLink>
        <QrCodeToggle
          qrPath={qrPathOf(config.downloadUrl)}
          shown={showQr}
          onToggle={() => setShowQr((shown) => !shown)}
        />
      </div>
      {showQr ? <ConfigQrCode downloadUrl={config.downloadUrl} configSlot={config.configSlot} /> : null}
      {config.alternate ? <AlternatePortOffer alternate={config.alternate} slot={config.configSlot} /> : null}
    </div>
  );
}

/**
 * Shows or hides a config's QR code (`what`: which one, when a device has two). A real link to
 * the QR image (`qrPath`), which the browser opens without JavaScript; with it, the page shows
 * the code in place.
 */
export function QrCodeToggle({
  qrPath,
  shown,
  onToggle,
  what = "QR Code",
  size,
}: {
  qrPath: string;
  shown: boolean;
  onToggle: () => void;
  what?: string;
  size?: ButtonProps["size"];
}) {
  return (
    <Button asChild size={size} variant="outline">
      <a
        role="button"
        href={qrPath}
        aria-expanded={shown}
        onClick={(event: MouseEvent) => {
          event.preventDefault();
          onToggle();
        }}
      >
        <QrCode aria-hidden="true" />
        {shown ? `Hide ${what}` : `Show ${what}`}
      </a>
    </Button>
  );
}

/**
 * "Can't connect on this network? Use port 443": the same device's config with the
 * server's alternate port, its own file name so both tunnels fit in the app; no extra slot.
 */
export function AlternatePortOffer({ alternate, slot }: { alternate: AlternateOffer; slot: number }) {
  const { brandName } = usePublicConfig();
  const [showQr, setShowQr] = useState(false);
  const fileName = configFileName(brandName, slot, alternate.port);
  return (
    <div
      className="flex flex-col gap-2 rounded-md border border-dashed p-3 text-left text-sm"
      data-testid="alternate-port-offer"
    >
      <p className="font-medium">Can&apos;t connect on this network? Use port {alternate.port}</p>
      <p className="text-muted-foreground">
        Some hotel, office and mobile networks block the usual port. This is the same device on port{" "}
        {alternate.port} (it uses no extra device slot): import it as a second tunnel and switch it on where
        the first one does not connect.
      </p>
      <div className="flex flex-wrap gap-2">
        <DownloadConfigLink
          size="sm"
          variant="outline"
          downloadUrl={alternate.downloadUrl}
          fileName={fileName}
          // At 360–390 px the file name may not fit beside the word: it wraps inside the button.
          className="h-auto min-h-9 max-w-full whitespace-normal py-1.5 text-left"
        >
          <Download aria-hidden="true" />
          <span className="min-w-0 break-all">Download {fileName}</span>
        </DownloadConfigLink>
        <QrCodeToggle
          qrPath={qrPathOf(alternate.downloadUrl)}
          size="sm"
          shown={showQr}
          onToggle={() => setShowQr((shown) => !shown)}
          what={`port ${alternate.port} QR Code`}
        />
      </div>
      {showQr ? (
        <ConfigQrCode downloadUrl={alternate.downloadUrl} configSlot={slot} port={alternate.port} />
      ) : null}
    </div>
  );
}

/**
 * The QR code, fetched by this page (with the activation header, so showing it activates the
 * config) and shown as a data: image, which the Content-Security-Policy's img-src allows.
 */
export function ConfigQrCode({
  downloadUrl,
  configSlot,
  port,
}: {
  downloadUrl: string;
  configSlot: number;
  port?: number;
}) {
  const [image, setImage] = useState<{ src: string } | "loading" | "failed">("loading");
  useEffect(() => {
    const controller = new AbortController();
    setImage("loading");
    fetch(qrUrlOf(downloadUrl), {
      cache: "no-store",
      headers: activatingFetchHeaders,
      signal: controller.signal,
    })
      .then(async (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const svg = await response.text();
        setImage({ src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}` });
      })
      .catch(() => {
        if (!controller.signal.aborted) setImage("failed");
      });
    return () => controller.abort();
  }, [downloadUrl]);
  return (
    <figure className="flex flex-col items-center gap-2">
      {typeof image === "object" ? (
        <img
          src={image.src}
          alt={`QR code of the WireGuard config for device ${configSlot}${port ? ` on port ${port}` : ""}`}
          width={240}
          height={240}
          className="rounded bg-white p-2"
        />
      ) : (
        <div
          role="status"
          className="flex size-60 items-center justify-center rounded border text-sm text-muted-foreground"
        >
          {image === "loading"
            ? "Loading QR code..."
            : "Unable to load the QR code. Please try again or contact support."}
        </div>
      )}
      <figcaption className="text-sm text-muted-foreground">
        In the WireGuard app choose Add Tunnel, then Scan from QR code.
      </figcaption>
    </figure>
  );
}
