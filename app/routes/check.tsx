import { CheckCircle2, XCircle } from "lucide-react";
import { data, Link } from "react-router";
import { DnsCheck } from "#app/components/check/dns-check.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { regionLabel } from "#core/locations.ts";
import { pageMeta } from "#app/lib/meta.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
import type { PageHandle } from "#core/static-page.ts";
import { formatDateTimeUtc } from "#core/format.ts";
import { checkConnection } from "#server/domain/vpn/exit-addresses.ts";
import { streamingResultsThrough, type BuyerStreamingResult } from "#server/domain/vpn/streaming-checks.ts";
import type { Route } from "./+types/check";

// "Am I connected through Nigeria?": the visitor's address against the exit
// addresses of our VPN servers, no script needed; then whether their DNS goes through the tunnel,
// which the enhancement script asks. Different for every visitor, so never cached.
export const handle: PageHandle = { hydrate: false, perVisitor: true };

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Am I Connected Through Nigeria?",
      description:
        "Check in one second whether your connection really comes out in Nigeria through NaijaLink, and what to check if it does not.",
      path: "/check",
    },
    matches,
  );

export async function loader({ context }: Route.LoaderArgs) {
  const { address, server } = await checkConnection(context.services.db, context.exactClientIp);
  return data(
    {
      address,
      server: server && {
        name: server.name,
        location: regionLabel(server.region),
        streaming: await streamingResultsThrough(context.services.db, server.name),
      },
      dnsCheckZone: context.services.config.VPN_DNS_CHECK_ZONE,
    },
    { headers: { "Cache-Control": "no-store" } },
  );
}

export const headers: Route.HeadersFunction = ({ loaderHeaders }) => loaderHeaders;

export default function Check({ loaderData }: Route.ComponentProps) {
  const { address, server, dnsCheckZone } = loaderData;
  return (
    <section aria-labelledby="check-answer" className="px-4 py-12 md:py-16">
      <div className="mx-auto max-w-2xl">
        <p className="text-center text-lg font-medium text-muted-foreground">
          Am I connected through Nigeria?
        </p>
        {server ? <Connected address={address} server={server} /> : <NotConnected address={address} />}
        {/* Not connected: the advice shows at once; connected, only if the DNS check says no. */}
        <DnsCheck zone={dnsCheckZone} adviceShown={!server} />
      </div>
    </section>
  );
}

const answerClass = "mt-4 rounded-2xl border-2 p-6 text-center md:p-10";
const iconClass = "mx-auto size-20 md:size-24";
const headingClass = "mt-4 text-3xl font-bold tracking-tight md:text-5xl";

function Connected({
  address,
  server,
}: {
  address: string | null;
  server: { name: string; location: string; streaming: BuyerStreamingResult[] };
}) {
  const { brandName } = usePublicConfig();
  return (
    <>
      <div className={`${answerClass} border-primary bg-accent`}>
        <CheckCircle2 aria-hidden="true" className={`${iconClass} text-primary`} />
        <h1 id="check-answer" className={headingClass}>
          Yes, you are connected through Nigeria
        </h1>
        <p className="mt-4 text-lg">
          Your connection goes through {brandName} server{" "}
          <strong className="break-words">{server.name}</strong> in <strong>{server.location}</strong>.
        </p>
        {address ? (
          <p className="mt-2 text-muted-foreground">
            Websites see the address <span className="break-words font-mono">{address}</span>.
          </p>
        ) : null}
      </div>
      {server.streaming.length ? <StreamingResults results={server.streaming} /> : null}
      <p className="mt-6 text-center text-muted-foreground">
        Nigerian sites and prices are open to you. If an app still says it is not available in your region,
        close it completely and open it again.
      </p>
    </>
  );
}

/** The last check of each listed streaming service through the buyer's server (decision 133). */
function StreamingResults({ results }: { results: BuyerStreamingResult[] }) {
  return (
    <div className="mt-6">
      <h2 className="text-xl font-semibold">Streaming services through this server</h2>
      <p className="mt-1 text-muted-foreground">
        What our last check from this server found. A service may also look at your account or app, so treat a
        ✓ as a good sign rather than a promise.
      </p>
      <ul className="mt-3 grid gap-2" data-testid="streaming-results">
        {results.map((result) => (
          <li key={result.name} data-service={result.name} data-ok={String(result.ok)}>
            {result.ok ? (
              <span className="text-green-700">✓ {result.name} worked from this server</span>
            ) : (
              <span className="text-red-800">✗ {result.name} refused this server</span>
            )}{" "}
            <span className="text-muted-foreground">(checked {formatDateTimeUtc(result.checkedAt)})</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function NotConnected({ address }: { address: string | null }) {
  const { brandName } = usePublicConfig();
  return (
    <>
      <div className={`${answerClass} border-destructive bg-red-50`}>
        <XCircle aria-hidden="true" className={`${iconClass} text-destructive`} />
        <h1 id="check-answer" className={headingClass}>
          No, you are not connected through Nigeria
        </h1>
        <p className="mt-4 text-lg">
          {address ? (
            <>
              Your connection comes from <span className="break-words font-mono">{address}</span>, which is
              not one of {brandName}&apos;s servers.
            </>
          ) : (
            <>Your connection does not come from one of {brandName}&apos;s servers.</>
          )}
        </p>
      </div>
      <h2 className="mt-10 text-2xl font-semibold">What to check</h2>
      <ol className="mt-4 grid list-decimal gap-3 pl-6 text-lg marker:font-bold marker:text-primary">
        <li>
          <strong>The WireGuard app</strong> is installed and open on this device.
        </li>
        <li>
          <strong>The tunnel is switched on</strong>: its switch shows Active (on a phone, a VPN or key icon
          appears at the top of the screen).
        </li>
        <li>
          <strong>It is the right tunnel</strong>: the one you imported from your {brandName} .conf file or QR
          code. Turn off any other VPN, proxy or iCloud Private Relay; only one can be on at a time.
        </li>
        <li>
          <strong>DNS</strong>: keep the DNS setting that came with your config, and turn off your
          browser&apos;s own &quot;secure DNS&quot; if a site still shows the wrong country.
        </li>
      </ol>
      <p className="mt-4 text-muted-foreground">Then check again. Still stuck? We reply within 24 hours.</p>
      <div className="mt-6 flex flex-col gap-3 sm:flex-row">
        <Button asChild size="lg">
          <Link to="/check" reloadDocument>
            Check again
          </Link>
        </Button>
        <Button asChild size="lg" variant="outline">
          <Link to="/tutorial">Setup tutorial</Link>
        </Button>
        <Button asChild size="lg" variant="outline">
          <Link to="/contact">Contact support</Link>
        </Button>
      </div>
    </>
  );
}
