// Type-only: erased from the browser bundle.
import type { ServerHealth } from "#server/domain/ops/server-health.ts";

/** Where the red banner of every admin page leads (decision 094): why no server takes a device, and the fix. */
export function SalesStoppedExplanation({ servers }: { servers: ServerHealth[] }) {
  return (
    <section
      id="sales-stopped"
      aria-labelledby="sales-stopped-title"
      className="mt-6 rounded-xl border border-red-300 bg-red-50 p-4 text-sm"
    >
      <h2 id="sales-stopped-title" className="text-lg font-semibold text-red-900">
        Why sales are stopped
      </h2>
      <p className="mt-2">
        Checkout starts only when a VPN server can take a device: active, its node registered, an address
        left. Buyers are told the store cannot take orders right now; nobody is charged. None of these servers
        can:
      </p>
      {servers.length === 0 ? (
        <p className="mt-2 font-medium">There is no VPN server at all.</p>
      ) : (
        <ul className="mt-2 list-disc pl-5">
          {servers.map((server) => (
            <li key={server.id}>
              <span className="font-mono font-semibold">{server.name}</span>: {server.explanation}
            </li>
          ))}
        </ul>
      )}
      <h3 className="mt-3 font-semibold">How to fix it</h3>
      <ol className="mt-1 list-decimal pl-5">
        <li>
          A new server: run the agent&apos;s <code>setup</code> on its node with its node token
          (docs/operating.md §5); it takes devices once its node has registered.
        </li>
        <li>
          A drained or disabled server: <strong>Enable</strong> it below (or{" "}
          <code>npm run vpn -- enable-server NAME</code>).
        </li>
        <li>
          A full one: add a server (<code>npm run vpn -- add-server …</code>) and set up its node.
        </li>
        <li>
          Then <code>npm run doctor</code> checks the whole store.
        </li>
      </ol>
    </section>
  );
}
