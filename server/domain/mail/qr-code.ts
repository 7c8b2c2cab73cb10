import QRCode from "qrcode";

/** A PNG of the QR code of `text`, to attach inline: mail clients do not show SVG. */
export function qrCodePng(text: string): Promise<Buffer> {
  return QRCode.toBuffer(text, { type: "png", errorCorrectionLevel: "M", margin: 2 });
}
