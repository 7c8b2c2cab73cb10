import QRCode from "qrcode";
import { ShieldCheck } from "lucide-react";
import { useState, type FormEvent } from "react";
import { useRevalidator } from "react-router";
import { toast } from "sonner";
import { Button } from "#app/components/ui/button.tsx";
import { Input, Label } from "#app/components/ui/input.tsx";
import { authCall } from "./api.ts";

type Step =
  | { kind: "closed" }
  | { kind: "password" }
  | { kind: "scan"; qr: string; secret: string; backupCodes: string[] }
  | { kind: "done"; backupCodes: string[] };

/**
 * TOTP for the signed-in staff member: enrol with a QR code, confirm a code, keep the backup codes.
 * While staff are required to use it (`required`), it cannot be turned off here.
 */
export function TwoFactorSettings({ enabled, required = false }: { enabled: boolean; required?: boolean }) {
  const revalidator = useRevalidator();
  const [step, setStep] = useState<Step>({ kind: "closed" });
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);

  async function start(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    const result = await authCall(enabled ? "two-factor/disable" : "two-factor/enable", { password });
    setBusy(false);
    setPassword("");
    if (!result.ok) {
      toast.error(result.message || "Something went wrong");
      return;
    }
    if (enabled) {
      toast.success("Two-factor authentication is off");
      setStep({ kind: "closed" });
      void revalidator.revalidate();
      return;
    }
    const uri = String(result.data.totpURI);
    const qr = await QRCode.toString(uri, { type: "svg", margin: 1 });
    setStep({
      kind: "scan",
      qr: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(qr)}`,
      secret: new URL(uri).searchParams.get("secret") ?? "",
      backupCodes: (result.data.backupCodes as string[]) ?? [],
    });
  }

  async function confirm(event: FormEvent) {
    event.preventDefault();
    if (step.kind !== "scan") return;
    setBusy(true);
    const result = await authCall("two-factor/verify-totp", { code: code.trim() });
    setBusy(false);
    setCode("");
    if (!result.ok) {
      toast.error(result.message || "That code did not match");
      return;
    }
    toast.success("Two-factor authentication is on");
    setStep({ kind: "done", backupCodes: step.backupCodes });
    void revalidator.revalidate();
  }

  if (step.kind === "closed") {
    if (enabled && required) return null;
    return (
      <Button variant="outline" onClick={() => setStep({ kind: "password" })}>
        <ShieldCheck aria-hidden="true" /> {enabled ? "Turn off two-factor" : "Set up two-factor"}
      </Button>
    );
  }

  return (
    <div className="w-full rounded-lg border p-4 md:max-w-md">
      {step.kind === "password" ? (
        <form onSubmit={start} className="space-y-3">
          <Label htmlFor="two-factor-password">Confirm your password</Label>
          <Input
            id="two-factor-password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
          <div className="flex gap-2">
            <Button type="submit" disabled={!password || busy}>
              {enabled ? "Turn off" : "Continue"}
            </Button>
            <Button type="button" variant="ghost" onClick={() => setStep({ kind: "closed" })}>
              Cancel
            </Button>
          </div>
        </form>
      ) : step.kind === "scan" ? (
        <form onSubmit={confirm} className="space-y-3">
          <p className="text-sm">Scan this code with your authenticator app, then enter the code it shows.</p>
          <img src={step.qr} alt="QR code for your authenticator app" className="size-48" />
          <p className="break-all text-xs text-muted-foreground">
            Or type this key: <code data-testid="totp-secret">{step.secret}</code>
          </p>
          <Label htmlFor="two-factor-confirm">Authentication code</Label>
          <Input
            id="two-factor-confirm"
            autoComplete="one-time-code"
            inputMode="numeric"
            required
            value={code}
            onChange={(event) => setCode(event.target.value)}
          />
          <Button type="submit" disabled={!code || busy}>
            Turn on
          </Button>
        </form>
      ) : (
        <div className="space-y-3">
          <p className="text-sm font-medium">
            Keep these backup codes somewhere safe. Each one signs you in once if you lose your phone.
          </p>
          <ul data-testid="backup-codes" className="grid grid-cols-2 gap-1 font-mono text-sm">
            {step.backupCodes.map((backupCode) => (
              <li key={backupCode}>{backupCode}</li>
            ))}
          </ul>
          <Button variant="outline" onClick={() => setStep({ kind: "closed" })}>
            Done
          </Button>
        </div>
      )}
    </div>
  );
}
