import { useCallback, useState } from "react";
import { ConfirmAction } from "#app/components/admin/confirm-action.tsx";
import { NodeTokenNotice } from "#app/components/admin/node-token-notice.tsx";
import { Input } from "#app/components/ui/input.tsx";

const FIELDS = [
  { name: "name", label: "Name", placeholder: "ng-lagos-2", required: true },
  { name: "region", label: "Region", placeholder: "ng-lagos", required: false },
  { name: "endpoint", label: "Endpoint (host:port)", placeholder: "vpn2.example.com:51820", required: true },
  { name: "ipv4", label: "IPv4 pool", placeholder: "10.67.0.0/16", required: true },
  { name: "ipv6", label: "IPv6 pool", placeholder: "fd67::/64", required: true },
  {
    name: "dns",
    label: "DNS (optional: VPN_DNS otherwise)",
    placeholder: "1.1.1.1, 1.0.0.1",
    required: false,
  },
  {
    name: "publicKey",
    label: "Node public key (optional: the agent registers it)",
    placeholder: "",
    required: false,
  },
] as const;

type Added = { server: { name: string; endpoint: string }; nodeToken: string };

/** Add a VPN server as `npm run vpn -- add-server` does; its node token is shown once, here. */
export function AddServerAction() {
  const [added, setAdded] = useState<{ name: string; endpoint: string; token: string } | null>(null);
  const show = useCallback(
    (result: Added) =>
      setAdded({ name: result.server.name, endpoint: result.server.endpoint, token: result.nodeToken }),
    [],
  );
  return (
    <div className="grid justify-items-end">
      <ConfirmAction
        label="Add server"
        title="Add a VPN server"
        description="It takes devices once its agent has registered the node's key. Its node token is shown once, after this."
        variant="default"
        fields={FIELDS.map((field) => (
          <label key={field.name} className="grid gap-1 text-sm font-medium">
            {field.label}
            <Input name={field.name} placeholder={field.placeholder} required={field.required} />
          </label>
        ))}
        intent="add"
        onDone={show}
      />
      {added ? (
        <NodeTokenNotice
          serverName={added.name}
          endpoint={added.endpoint}
          token={added.token}
          onDismiss={() => setAdded(null)}
        />
      ) : null}
    </div>
  );
}
