import { ConfirmAction } from "#app/components/admin/confirm-action.tsx";
import { Input } from "#app/components/ui/input.tsx";
import { formatDateTimeUtc } from "#core/format.ts";
// Type-only: erased from the browser bundle.
import type { ServerHealth } from "#server/domain/ops/server-health.ts";
import type { StreamingService } from "#server/db/schema/index.ts";

/** The most services listed (agent/node-api.ts's MAX_STREAMING_SERVICES; the action refuses more). */
const MAX_SERVICES = 10;

/** Each listed streaming service's last check through one server (decision 133): ✓, ✗ with why, or not yet. */
export function StreamingFacts({ server }: { server: Pick<ServerHealth, "streaming"> }) {
  if (server.streaming.length === 0) return null;
  return (
    <>
      <dt className="text-muted-foreground">Streaming from its exit</dt>
      <dd>
        <ul data-testid="streaming-results">
          {server.streaming.map((result) => (
            <li key={result.serviceId} data-service={result.name} data-ok={String(result.ok)}>
              {result.ok === null ? (
                <span className="text-muted-foreground">… {result.name}: not checked yet</span>
              ) : result.ok ? (
                <span className="text-green-700">
                  ✓ {result.name}{" "}
                  <span className="text-muted-foreground">({formatDateTimeUtc(result.checkedAt)})</span>
                </span>
              ) : (
                <strong className={result.required ? "text-red-800" : "text-yellow-700"}>
                  ✗ {result.name}: {result.reason}{" "}
                  <span className="font-normal text-muted-foreground">
                    ({formatDateTimeUtc(result.checkedAt)}
                    {result.required ? "; new devices go elsewhere while another server passes" : ""})
                  </span>
                </strong>
              )}
            </li>
          ))}
        </ul>
      </dd>
    </>
  );
}

const FIELDS = [
  { name: "name", label: "Name", placeholder: "DStv Stream", required: true, type: "text" },
  {
    name: "url",
    label: "URL to fetch",
    placeholder: "https://www.example.com/ng/",
    required: true,
    type: "url",
  },
  {
    name: "expectStatus",
    label: "Status that means it works",
    placeholder: "200",
    required: false,
    type: "number",
  },
  {
    name: "bodyContains",
    label: "Text the page must hold (optional)",
    placeholder: "",
    required: false,
    type: "text",
  },
  {
    name: "bodyLacks",
    label: "Text the page must not hold (optional)",
    placeholder: "not available in your region",
    required: false,
    type: "text",
  },
] as const;

/** The services staff check from every exit: listed, added and removed here. */
export function StreamingServices({ services }: { services: StreamingService[] }) {
  return (
    <section className="mt-6 rounded-lg border p-4" aria-labelledby="streaming-services">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h2 id="streaming-services" className="text-lg font-semibold">
            Streaming checks
          </h2>
          <p className="mt-1 text-sm text-muted-foreground">
            Each server&apos;s agent fetches these from its exit every 15 minutes (10 s and 256 KB at most, no
            redirect followed, no cookies kept). A required service that fails through a server e-mails the
            admins once, and new devices go to a server that passes every required check while one can take
            them.
          </p>
        </div>
        {services.length < MAX_SERVICES ? (
          <ConfirmAction
            label="Add service"
            title="Check a streaming service from every exit"
            description="The answer that means it works from there: this status (redirects are not followed), and the texts if given."
            variant="default"
            fields={
              <>
                {FIELDS.map((field) => (
                  <label key={field.name} className="grid gap-1 text-sm font-medium">
                    {field.label}
                    <Input
                      name={field.name}
                      type={field.type}
                      placeholder={field.placeholder}
                      required={field.required}
                    />
                  </label>
                ))}
                <label className="grid gap-1 text-sm font-medium">
                  Required
                  <select name="required" defaultValue="yes" className="rounded-md border px-2 py-1">
                    <option value="yes">yes: alert and steer new devices when it fails</option>
                    <option value="no">no: only shown</option>
                  </select>
                </label>
              </>
            }
            intent="add-streaming-service"
          />
        ) : null}
      </div>
      {services.length === 0 ? (
        <p className="mt-3 text-sm text-muted-foreground">No services are checked.</p>
      ) : (
        <ul className="mt-3 grid gap-2" data-testid="streaming-services">
          {services.map((service) => (
            <li key={service.id} className="flex flex-wrap items-center justify-between gap-2 text-sm">
              <span>
                <strong>{service.name}</strong> <span className="break-all font-mono">{service.url}</span>
                {" — "}
                {service.expectStatus}
                {service.bodyContains ? `, holds "${service.bodyContains}"` : ""}
                {service.bodyLacks ? `, without "${service.bodyLacks}"` : ""}
                {service.required ? ", required" : ", shown only"}
              </span>
              <ConfirmAction
                label="Remove"
                title={`Stop checking ${service.name}`}
                description="Its results and any open alert about it go with it."
                variant="outline"
                intent="remove-streaming-service"
                target={{ serviceId: service.id }}
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
