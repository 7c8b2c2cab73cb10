import { CirclePause } from "lucide-react";

/**
 * What /pricing and every purchase step say, from the server's render, while no VPN server can
 * take a device: no checkout starts then (checkout.ts refuses too), so nothing invites a buyer on.
 */
export function OrdersPaused() {
  return (
    <section
      role="status"
      aria-labelledby="orders-paused-title"
      data-testid="orders-paused"
      className="mx-auto flex max-w-2xl flex-col items-center gap-3 rounded-xl border border-amber-300 bg-amber-50 p-6 text-center text-amber-950"
    >
      <CirclePause aria-hidden="true" className="size-10" />
      <h2 id="orders-paused-title" className="text-xl font-semibold">
        Orders are paused
      </h2>
      <p>
        We cannot set up new connections right now, so we are not taking orders and nobody is charged. Please
        try again later, or{" "}
        <a href="/contact" className="font-medium underline underline-offset-2">
          contact support
        </a>
        .
      </p>
    </section>
  );
}
