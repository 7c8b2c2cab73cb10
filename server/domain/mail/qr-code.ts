/** A PNG of the QR code of `text`, to attach inline: mail clients do not show SVG. */
export async function qrCodePng(text: string): Promise<Buffer> {
  // Loaded when the first config e-mail is composed, not at start (issue 26).
  const { default: QRCode } = await import("qrcode");
  return QRCode.toBuffer(text, { type: "png", errorCorrectionLevel: "M", margin: 2 });
}
