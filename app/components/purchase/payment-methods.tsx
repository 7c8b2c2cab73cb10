import { Bitcoin, CreditCard, Wallet } from "lucide-react";
import { toast } from "sonner";
import { Badge } from "#app/components/ui/badge.tsx";
import { cn } from "#app/lib/utils.ts";

export type PaymentMethod = "card" | "paypal" | "crypto";

const METHODS: Array<{
  id: PaymentMethod;
  label: string;
  detail: string;
  comingSoon: boolean;
  icon: typeof CreditCard;
}> = [
  {
    id: "card",
    label: "Card",
    detail: "Visa, Mastercard, American Express",
    comingSoon: false,
    icon: CreditCard,
  },
  { id: "paypal", label: "PayPal", detail: "Pay with your PayPal account", comingSoon: true, icon: Wallet },
  {
    id: "crypto",
    label: "Cryptocurrency",
    detail: "Bitcoin, Ethereum, USDC",
    comingSoon: true,
    icon: Bitcoin,
  },
];

export const isComingSoon = (method: PaymentMethod | null) =>
  METHODS.some((entry) => entry.id === method && entry.comingSoon);

/** Card is the only method that can be chosen; the others explain themselves in a toast. */
export function PaymentMethods({
  value,
  onChange,
}: {
  value: PaymentMethod | null;
  onChange: (method: PaymentMethod) => void;
}) {
  return (
    <div role="radiogroup" aria-label="Payment method" className="grid gap-3">
      {METHODS.map((method) => {
        const checked = value === method.id;
        const Icon = method.icon;
        return (
          <button
            key={method.id}
            type="button"
            role="radio"
            aria-checked={checked}
            aria-disabled={method.comingSoon || undefined}
            onClick={() => {
              if (method.comingSoon) {
                toast.error("Coming Soon", { description: `${method.label} integration is coming soon.` });
                return;
              }
              onChange(method.id);
            }}
            className={cn(
              "flex items-center gap-4 rounded-lg border p-4 text-left transition-colors",
              checked ? "border-primary ring-2 ring-primary" : "hover:bg-accent",
              method.comingSoon && "cursor-not-allowed opacity-60",
            )}
          >
            <Icon aria-hidden="true" className="size-6 shrink-0" />
            <span className="flex flex-1 flex-col">
              <span className="font-semibold">{method.label}</span>
              <span className="text-sm text-muted-foreground">{method.detail}</span>
            </span>
            {method.comingSoon ? <Badge variant="secondary">Coming Soon</Badge> : null}
          </button>
        );
      })}
    </div>
  );
}
