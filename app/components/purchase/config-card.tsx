import { Download, QrCode } from "lucide-react";
import { useEffect, useState } from "react";
import { toast } from "sonner";
import { Button } from "#app/components/ui/button.tsx";
import { activatingFetchHeaders } from "#app/lib/config-activation.ts";
import { configFileName } from "#app/lib/config-file-name.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";

export interface IssuedConfig {
  downloadUrl: string;
  configSlot: number;
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

/** Fetches the config with the activation header (decision 064) and saves it as `fileName`. */
export async function saveConfig(downloadUrl: string | null, fileName: string) {
  if (!downloadUrl) {
    toast.error("Download Unavailable", { description: "Please contact support for assistance." });
    return;
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
  } catch {
    toast.error("Download Failed", {
      description: "Unable to download the file. Please try again or contact support.",
    });
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
        <Button variant="outline" aria-expanded={showQr} onClick={() => setShowQr((shown) => !shown)}>
          <QrCode aria-hidden="true" />
          {showQr ? "Hide QR Code" : "Show QR Code"}
        </Button>
      </div>
      {showQr ? <ConfigQrCode downloadUrl={config.downloadUrl} configSlot={config.configSlot} /> : null}
    </div>
  );
}

/**
 * The QR code, fetched by this page (with the activation header, so showing it activates the
 * config) and shown as a data: image, which the Content-Security-Policy's img-src allows.
 */
export function ConfigQrCode({ downloadUrl, configSlot }: IssuedConfig) {
  const [image, setImage] = useState<{ src: string } | "loading" | "failed">("loading");
  useEffect(() => {
    const controller = new AbortController();
    setImage("loading");
    fetch(`${sameOriginUrl(downloadUrl)}/qr.svg`, {
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
          alt={`QR code of the WireGuard config for device ${configSlot}`}
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
