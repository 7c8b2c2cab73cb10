// QR codes, drawn on the server: a config's (its download's SVG and its e-mail's PNG) and the
// two-factor enrolment's. `qrcode` is loaded on first use, not at start (issue 26).
const OPTIONS = { errorCorrectionLevel: "M", margin: 2 } as const;

/** A PNG of the QR code of `text`, to attach inline: mail clients do not show SVG. */
export async function qrCodePng(text: string): Promise<Buffer> {
  const { default: QRCode } = await import("qrcode");
  return QRCode.toBuffer(text, { ...OPTIONS, type: "png" });
}

/** The QR code of `text` as an SVG document. */
export async function qrCodeSvg(text: string): Promise<string> {
  const { default: QRCode } = await import("qrcode");
  return QRCode.toString(text, { ...OPTIONS, type: "svg" });
}
