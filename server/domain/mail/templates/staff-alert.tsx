import type { EmailData } from "../email-data.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import { EmailLayout, Facts, Paragraph, type EmailSite } from "./layout.tsx";

// Staff alerts: one e-mail when an outage starts, none while it lasts. No links,
// keys or buyers' addresses: ids staff can look up, and what to check.

const minutesSince = (then: Date, now: Date) =>
  Math.max(0, Math.floor((now.getTime() - then.getTime()) / 60_000));

type StaffAlert = EmailData<"staff-alert">;
type Alert<Name extends StaffAlert["alert"]> = Extract<StaffAlert, { alert: Name }>;
export type SilentNode = Alert<"node-silent">["node"];

export function NodeSilentEmail({ site, node, now }: { site: EmailSite; node: SilentNode; now: Date }) {
  const minutes = minutesSince(node.lastSeenAt, now);
  return (
    <EmailLayout
      site={site}
      audience="staff"
      preview={`${node.name} has not reported for ${minutes} minutes.`}
      title={`VPN node ${node.name} has stopped reporting`}
    >
      <Paragraph>
        Its agent has not reported for {minutes} minutes. Peers added or removed since then may not be live on
        it, and its buyers may be unable to connect.
      </Paragraph>
      <Facts
        rows={[
          ["VPN server", node.name],
          ["Last report", node.lastSeenAt.toISOString()],
          ["Peers it should carry", String(node.desiredPeers)],
        ]}
      />
      <Paragraph>
        On the node: systemctl status naijalink-agent and journalctl -u naijalink-agent. You get one e-mail
        per outage; the next one comes only after the node has reported again.
      </Paragraph>
    </EmailLayout>
  );
}

function nodeSilentEmail(site: EmailSite, { node, now }: Alert<"node-silent">): Promise<RenderedEmail> {
  return renderEmail(
    `VPN node ${node.name} has not reported for ${minutesSince(node.lastSeenAt, now)} minutes`,
    <NodeSilentEmail site={site} node={node} now={now} />,
  );
}

export type StuckOutbox = Alert<"outbox-stuck">["outbox"];

export function OutboxStuckEmail({ site, outbox, now }: { site: EmailSite; outbox: StuckOutbox; now: Date }) {
  const minutes = minutesSince(outbox.oldestPendingAt, now);
  return (
    <EmailLayout
      site={site}
      audience="staff"
      preview={`${outbox.pending} e-mails are waiting; the oldest for ${minutes} minutes.`}
      title="E-mail is not going out"
    >
      <Paragraph>
        {outbox.pending} e-mails are waiting in the outbox; the oldest was queued {minutes} minutes ago.
        Buyers may be waiting for their configs and sign-in links.
      </Paragraph>
      <Facts
        rows={[
          ["Waiting", String(outbox.pending)],
          ["Oldest queued", outbox.oldestPendingAt.toISOString()],
        ]}
      />
      <Paragraph>
        This e-mail went through the same outbox, so it may reach you late, once sending works again. Look at
        the server log for the SMTP error and at SMTP_URL.
      </Paragraph>
    </EmailLayout>
  );
}

function outboxStuckEmail(site: EmailSite, { outbox, now }: Alert<"outbox-stuck">): Promise<RenderedEmail> {
  return renderEmail(
    `E-mail is stuck: ${outbox.pending} waiting, the oldest for ${minutesSince(outbox.oldestPendingAt, now)} minutes`,
    <OutboxStuckEmail site={site} outbox={outbox} now={now} />,
  );
}

export function ConfigurationPendingEmail({
  site,
  pending: { waiting, listed },
}: {
  site: EmailSite;
  pending: Alert<"configuration-pending">;
}) {
  return (
    <EmailLayout
      site={site}
      audience="staff"
      preview={`${waiting} paid buyers are waiting for their config.`}
      title="Paid buyers are waiting at Configuration Pending"
    >
      <Paragraph>
        {waiting === 1 ? "A buyer has" : `${waiting} buyers have`} paid but no config could be issued: no
        active VPN server with a registered node has room. Add a VPN server or enable one; the server log says
        why each was refused ("config pending: cannot issue a device").
      </Paragraph>
      <Facts
        rows={listed.map((buyer): [string, string] => [
          buyer.subscriptionId ? `Subscription ${buyer.subscriptionId}` : "No subscription recorded yet",
          `${buyer.planId}, paid ${buyer.paidAt.toISOString()}, checkout ${buyer.checkoutSessionId}`,
        ])}
      />
      {waiting > listed.length && <Paragraph>And {waiting - listed.length} more.</Paragraph>}
    </EmailLayout>
  );
}

function configurationPendingEmail(
  site: EmailSite,
  pending: Alert<"configuration-pending">,
): Promise<RenderedEmail> {
  const { waiting } = pending;
  return renderEmail(
    `${waiting} paid ${waiting === 1 ? "buyer is" : "buyers are"} waiting for a config`,
    <ConfigurationPendingEmail site={site} pending={pending} />,
  );
}

export function staffAlertEmail(site: EmailSite, alert: StaffAlert): Promise<RenderedEmail> {
  switch (alert.alert) {
    case "node-silent":
      return nodeSilentEmail(site, alert);
    case "outbox-stuck":
      return outboxStuckEmail(site, alert);
    case "configuration-pending":
      return configurationPendingEmail(site, alert);
    case "ledger-differences":
      return renderEmail(
        `The books differ from Stripe in ${alert.total} new ${alert.total === 1 ? "place" : "places"}`,
        <LedgerDifferencesEmail site={site} alert={alert} />,
      );
    case "exit-abroad":
      return renderEmail(
        `VPN server ${alert.server}: its exit address does not appear to be in Nigeria`,
        <ExitAbroadEmail site={site} alert={alert} />,
      );
    case "streaming-refused":
      return renderEmail(
        `VPN server ${alert.server}: ${alert.service} does not work through it`,
        <StreamingRefusedEmail site={site} alert={alert} />,
      );
    case "sales-stopped":
      return renderEmail(
        "Sales are stopped: no VPN server can take a device",
        <SalesStoppedEmail site={site} servers={alert.servers} />,
      );
  }
}

export function SalesStoppedEmail({
  site,
  servers,
}: {
  site: EmailSite;
  servers: Alert<"sales-stopped">["servers"];
}) {
  return (
    <EmailLayout
      site={site}
      audience="staff"
      preview="No VPN server can take a device: checkout is closed."
      title="Sales are stopped: no VPN server can take a device"
    >
      <Paragraph>
        No checkout starts until a VPN server can take a device (active, its node registered, an address
        left). Buyers are told the store cannot take orders right now; nobody is charged.
      </Paragraph>
      <Facts
        rows={
          servers.length
            ? servers.map((server): [string, string] => [server.name, server.explanation])
            : [["VPN servers", "none"]]
        }
      />
      <Paragraph>
        The Servers page of the staff console shows the same, and npm run doctor checks the whole store. You
        get one e-mail per outage; the next one comes only after sales have started again.
      </Paragraph>
    </EmailLayout>
  );
}

export function LedgerDifferencesEmail({
  site,
  alert: { differences, total, now },
}: {
  site: EmailSite;
  alert: Alert<"ledger-differences">;
}) {
  return (
    <EmailLayout
      site={site}
      audience="staff"
      preview={`Reconciliation found ${total} new difference(s) between the books and Stripe.`}
      title="The books differ from Stripe"
    >
      <Paragraph>
        Today&apos;s reconciliation ({now.toISOString().slice(0, 16).replace("T", " ")} UTC) compared the
        ledger with Stripe&apos;s charges, refunds and disputes of the last 35 days and found{" "}
        {total === 1 ? "a difference" : `${total} differences`} not reported before.
      </Paragraph>
      <Facts rows={differences.map((difference): [string, string] => [difference.detail, difference.fix])} />
      {total > differences.length && <Paragraph>And {total - differences.length} more on /admin.</Paragraph>}
      <Paragraph>
        The staff dashboard lists every open difference. Each is e-mailed once; it leaves the list when a
        later run no longer finds it. npm run doctor runs the same comparison.
      </Paragraph>
    </EmailLayout>
  );
}

export function ExitAbroadEmail({ site, alert }: { site: EmailSite; alert: Alert<"exit-abroad"> }) {
  return (
    <EmailLayout
      site={site}
      audience="staff"
      preview={`${alert.server}'s exit address appears to be outside Nigeria.`}
      title={`${alert.server}: its exit address does not appear to be in Nigeria`}
    >
      <Paragraph>
        Buyers are promised a Nigerian IP address. The country database shipped with the app (built{" "}
        {alert.databaseBuiltAt.toISOString().slice(0, 10)}) places this server&apos;s traffic elsewhere, so
        sites that look the address up may treat its buyers as abroad.
      </Paragraph>
      <Facts
        rows={alert.exits.map((exit): [string, string] => [
          exit.address,
          exit.country ? `appears in ${exit.country}` : "not in the country database",
        ])}
      />
      <Paragraph>
        If the exit address is wrong, re-run the node&apos;s setup with --exit-addresses, or npm run vpn --
        set-exit {alert.server} IP. If it is right, ask the node&apos;s provider to correct the address&apos;s
        geolocation, or move to a provider in Nigeria. npm run doctor and the Servers page of the staff
        console show the same. You get one e-mail until the addresses change.
      </Paragraph>
    </EmailLayout>
  );
}

export function StreamingRefusedEmail({
  site,
  alert,
}: {
  site: EmailSite;
  alert: Alert<"streaming-refused">;
}) {
  return (
    <EmailLayout
      site={site}
      audience="staff"
      preview={`${alert.service} does not work through ${alert.server}.`}
      title={`${alert.server}: ${alert.service} does not work through it`}
    >
      <Paragraph>
        The server&apos;s agent fetched {alert.service} through the server&apos;s exit and did not get the
        answer that means it works from there. Buyers who come for it may find it refuses them.
      </Paragraph>
      <Facts
        rows={[
          ["Found", alert.reason],
          ["Checked", `${alert.checkedAt.toISOString().slice(0, 16).replace("T", " ")} UTC`],
        ]}
      />
      <Paragraph>
        New devices go to a server that passes every required check while one can take them; devices already
        on this server stay. The Servers page of the staff console shows each service per server. If the
        service blocks the exit&apos;s address range, ask the node&apos;s provider for another address or move
        to another provider. You get one e-mail until a check passes again.
      </Paragraph>
    </EmailLayout>
  );
}
