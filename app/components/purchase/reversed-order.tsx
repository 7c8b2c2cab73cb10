import { Undo2 } from "lucide-react";
import { Link } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { formatLongDate } from "#core/format.ts";
import type { ReversedOrder } from "./verification.ts";

/**
 * The success page of an order whose payment went back: it says so, with the date,
 * and where to ask about it or buy again — never "Invalid Payment Session".
 */
export function ReversedOrderNotice({ order }: { order: ReversedOrder }) {
  const refunded = order.reversal === "refunded";
  const on = formatLongDate(order.at);
  return (
    <>
      <Undo2 aria-hidden="true" className="size-12 text-purple-700" />
      <h1 className="text-3xl font-bold" data-testid="order-reversed">
        {refunded ? `Refunded on ${on}` : `Payment disputed on ${on}`}
      </h1>
      <p className="text-muted-foreground">
        {refunded
          ? "This order was refunded: the payment went back to you, and its configs no longer work."
          : "The payment for this order was disputed with your bank, and its configs no longer work."}{" "}
        Questions about it? Our support team will help.
      </p>
      <div className="flex flex-wrap justify-center gap-3">
        <Button asChild>
          <Link to="/contact">Contact Support</Link>
        </Button>
        <Button asChild variant="outline">
          <Link to="/pricing">View Plans</Link>
        </Button>
      </div>
    </>
  );
}
