import { useRouteLoaderData } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { nodeSetupCommand } from "#app/lib/node-setup-advice.ts";

/** A node token, shown once after it was made: only its hash is kept, so it cannot be shown again. */
export function NodeTokenNotice(props: {
  serverName: string;
  /** The server's endpoint: its port is the node's listen port. */
  endpoint: string;
  token: string;
  /** Hides it (with JavaScript; without, it is gone on the next page). */
  onDismiss?: () => void;
}) {
  const publicUrl =
    useRouteLoaderData<{ publicConfig: { publicUrl: string } }>("root")?.publicConfig.publicUrl ?? "";
  return (
    <div
      role="status"
      className="mt-4 grid gap-2 rounded-md border border-yellow-300 bg-yellow-50 p-4 text-sm"
    >
      <p className="font-semibold">Node token for {props.serverName} (shown once)</p>
      <p>
        Store it on the node in a mode-0600 file and pass it to the agent with <code>--token-file</code>. It
        cannot be shown again; rotate the token if it is lost.
      </p>
      <code className="break-all rounded bg-white p-2 font-mono text-xs" data-testid="node-token">
        {props.token}
      </code>
      <p>Then, on the node (docs/operating.md §5), with the token in /etc/naijalink/node-token:</p>
      <code className="break-all rounded bg-white p-2 font-mono text-xs">
        {nodeSetupCommand(publicUrl, props.endpoint)}
      </code>
      <div className="flex flex-wrap gap-2">
        <Button
          type="button"
          size="sm"
          variant="outline"
          onClick={() => void navigator.clipboard?.writeText(props.token)}
        >
          Copy token
        </Button>
        {props.onDismiss ? (
          <Button type="button" size="sm" variant="outline" onClick={props.onDismiss}>
            I stored it
          </Button>
        ) : null}
      </div>
    </div>
  );
}
