import { CheckCircle2, Loader2, XCircle } from "lucide-react";
import { Link } from "react-router";
import { DNS_CHECK, type DnsOutcome } from "#app/lib/dns-check.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";

// The DNS half of /check. The server renders every outcome; the enhancement script
// (app/enhance/dns-check.ts) has the browser resolve a per-visit name under `zone`, asks
// GET /api/check/dns whether one of our nodes' resolvers saw it, and shows the matching outcome.

const linkClass = "font-medium text-primary underline underline-offset-2";

export function DnsCheck({ zone, adviceShown }: { zone: string; adviceShown: boolean }) {
  const { brandName } = usePublicConfig();
  const outcome = (name: DnsOutcome, visible: boolean) => ({
    [DNS_CHECK.outcome]: name,
    hidden: !visible,
  });
  return (
    <section
      aria-labelledby="dns-check-title"
      className="mt-10 rounded-2xl border p-6"
      {...{ [DNS_CHECK.root]: "", "data-zone": zone }}
    >
      <h2 id="dns-check-title" className="text-2xl font-semibold">
        Does your DNS go through the tunnel?
      </h2>
      <p className="mt-2 text-muted-foreground">
        Your device asks a DNS resolver where each site is. Inside the tunnel that is {brandName}&apos;s own
        resolver on the server; anywhere else, the network you are on can see and change the answers.
      </p>
      <div role="status" className="mt-4 text-lg">
        <p {...outcome("script", true)}>This check runs in your browser: it needs JavaScript.</p>
        <p {...outcome("running", false)} className="flex items-center gap-2">
          <Loader2 aria-hidden="true" className="size-5 animate-spin motion-reduce:animate-none" />
          Checking which resolver answers for you (this takes up to half a minute)...
        </p>
        <p {...outcome("yes", false)} className="flex items-start gap-2">
          <CheckCircle2 aria-hidden="true" className="mt-1 size-5 shrink-0 text-primary" />
          <span>
            Yes, your DNS goes through the tunnel: server{" "}
            <strong className="break-words" {...{ [DNS_CHECK.server]: "" }} />
            &apos;s own resolver answered.
          </span>
        </p>
        <p {...outcome("no", false)} className="flex items-start gap-2">
          <XCircle aria-hidden="true" className="mt-1 size-5 shrink-0 text-destructive" />
          <span>
            No, your DNS does not go through {brandName}&apos;s resolver: the network you are on answers your
            lookups. See what to do below.
          </span>
        </p>
        <p {...outcome("failed", false)}>
          The DNS check could not finish.{" "}
          <Link to="/check" reloadDocument className={linkClass}>
            Check again
          </Link>
          .
        </p>
      </div>
      <div {...{ [DNS_CHECK.advice]: "" }} hidden={!adviceShown}>
        <TunnelAdvice />
      </div>
    </section>
  );
}

/** What helps when the tunnel does not connect, stalls, or leaks DNS. */
export function TunnelAdvice() {
  const { brandName } = usePublicConfig();
  return (
    <>
      <h3 className="mt-6 text-xl font-semibold">If it does not work on this network</h3>
      <ul className="mt-3 grid list-disc gap-3 pl-6">
        <li>
          <strong>Can&apos;t connect on this network? Use port 443.</strong> Some hotel, office and mobile
          networks block WireGuard&apos;s usual port. On{" "}
          <Link to="/account" className={linkClass}>
            your account page
          </Link>{" "}
          (or from your config e-mail), download the same device&apos;s config for port 443, import it as a
          second tunnel and switch that one on.
        </li>
        <li>
          <strong>Pages load but videos or downloads stall?</strong> Download your config again from your
          account page and import it in place of the old one: current configs carry an MTU line (1280) that
          fits hotel, mobile and home-router paths.
        </li>
        <li>
          <strong>DNS outside the tunnel?</strong> Keep the DNS setting that came with your config, and turn
          off your browser&apos;s &quot;secure DNS&quot; and Android&apos;s &quot;Private DNS&quot;. A config
          downloaded again names {brandName}&apos;s own resolver on the server.
        </li>
      </ul>
    </>
  );
}
