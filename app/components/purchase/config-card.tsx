import { Download, QrCode } from "lucide-react";
import { useEffect, useState } from "react";
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
        <Button onClick={() => saveConfig(config.downloadUrl, fileName)}>
          <Download aria-hidden="true" />
          Download .conf File
        </Button>
        <QrCodeToggle shown={showQr} onToggle={() => setShowQr((shown) => !shown)} />
      </div>
      {showQr ? <ConfigQrCode downloadUrl={config.downloadUrl} configSlot={config.configSlot} /> : null}
      {config.alternate ? <AlternatePortOffer alternate={config.alternate} slot={config.configSlot} /> : null}
    </div>
  );
}

/** Shows or hides a config's QR code (`what`: which one, when a device has two). */
export function QrCodeToggle({
  shown,
  onToggle,
  what = "QR Code",
  size,
}: {
  shown: boolean;
  onToggle: () => void;
  what?: string;
  size?: ButtonProps["size"];
}) {
  return (
    <Button size={size} variant="outline" aria-expanded={shown} onClick={onToggle}>
      <QrCode aria-hidden="true" />
      {shown ? `Hide ${what}` : `Show ${what}`}
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
        <Button size="sm" variant="outline" onClick={() => saveConfig(alternate.downloadUrl, fileName)}>
          <Download aria-hidden="true" />
          Download {fileName}
        </Button>
        <QrCodeToggle
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
