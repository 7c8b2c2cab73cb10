import { renderEmail, type RenderedEmail } from "../render.ts";
import { EmailLayout, Facts, Paragraph, type EmailSite } from "./layout.tsx";

// Staff alerts (decision 083): one e-mail when an outage starts, none while it lasts. No links,
// keys or buyers' addresses: ids staff can look up, and what to check.

const minutesSince = (then: Date, now: Date) =>
  Math.max(0, Math.floor((now.getTime() - then.getTime()) / 60_000));

export interface SilentNode {
  name: string;
  lastSeenAt: Date;
  desiredPeers: number;
}

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

export function nodeSilentEmail(site: EmailSite, node: SilentNode, now: Date): Promise<RenderedEmail> {
  return renderEmail(
    `VPN node ${node.name} has not reported for ${minutesSince(node.lastSeenAt, now)} minutes`,
    <NodeSilentEmail site={site} node={node} now={now} />,
  );
}

export interface StuckOutbox {
  pending: number;
  oldestPendingAt: Date;
}

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

export function outboxStuckEmail(site: EmailSite, outbox: StuckOutbox, now: Date): Promise<RenderedEmail> {
  return renderEmail(
    `E-mail is stuck: ${outbox.pending} waiting, the oldest for ${minutesSince(outbox.oldestPendingAt, now)} minutes`,
    <OutboxStuckEmail site={site} outbox={outbox} now={now} />,
  );
}

export interface WaitingBuyer {
  subscriptionId: string | null;
  checkoutSessionId: string;
  planId: string;
  paidAt: Date;
}

/** At most this many are listed; the count says how many wait. */
const LISTED_BUYERS = 20;

export function ConfigurationPendingEmail({ site, waiting }: { site: EmailSite; waiting: WaitingBuyer[] }) {
  const listed = waiting.slice(0, LISTED_BUYERS);
  return (
    <EmailLayout
      site={site}
      audience="staff"
      preview={`${waiting.length} paid buyers are waiting for their config.`}
      title="Paid buyers are waiting at Configuration Pending"
    >
      <Paragraph>
        {waiting.length === 1 ? "A buyer has" : `${waiting.length} buyers have`} paid but no config could be
        issued: no active VPN server with a registered node has room. Add a VPN server or enable one; the
        server log says why each was refused ("config pending: cannot issue a device").
      </Paragraph>
      <Facts
        rows={listed.map((buyer): [string, string] => [
          buyer.subscriptionId ? `Subscription ${buyer.subscriptionId}` : "No subscription recorded yet",
          `${buyer.planId}, paid ${buyer.paidAt.toISOString()}, checkout ${buyer.checkoutSessionId}`,
        ])}
      />
      {waiting.length > listed.length && <Paragraph>And {waiting.length - listed.length} more.</Paragraph>}
    </EmailLayout>
  );
}

export function configurationPendingEmail(site: EmailSite, waiting: WaitingBuyer[]): Promise<RenderedEmail> {
  return renderEmail(
    `${waiting.length} paid ${waiting.length === 1 ? "buyer is" : "buyers are"} waiting for a config`,
    <ConfigurationPendingEmail site={site} waiting={waiting} />,
  );
}

export interface StoppedServer {
  name: string;
  explanation: string;
}

export function SalesStoppedEmail({ site, servers }: { site: EmailSite; servers: StoppedServer[] }) {
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

export function salesStoppedEmail(site: EmailSite, servers: StoppedServer[]): Promise<RenderedEmail> {
  return renderEmail(
    "Sales are stopped: no VPN server can take a device",
    <SalesStoppedEmail site={site} servers={servers} />,
  );
}
