import {
  Body,
  Container,
  Head,
  Heading,
  Hr,
  Html,
  Link,
  Preview,
  Section,
  Text,
} from "@react-email/components";
import type { CSSProperties, ReactNode } from "react";
import type { Config } from "#server/config.ts";

/** What every e-mail needs to know about the site that sends it. */
export type EmailSite = Pick<Config, "BRAND_NAME" | "PUBLIC_URL" | "SUPPORT_EMAIL">;

export function accountUrl(site: EmailSite): string {
  return `${site.PUBLIC_URL}/account`;
}

export function pricingUrl(site: EmailSite): string {
  return `${site.PUBLIC_URL}/pricing`;
}

const page: CSSProperties = {
  backgroundColor: "#f4f5f7",
  fontFamily: "-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif",
  color: "#1f2933",
  margin: 0,
  padding: "24px 0",
};
const card: CSSProperties = {
  backgroundColor: "#ffffff",
  borderRadius: "8px",
  maxWidth: "560px",
  padding: "32px",
};
const brandLine: CSSProperties = { color: "#0b7a3e", fontSize: "18px", fontWeight: 700, margin: "0 0 8px" };
const title: CSSProperties = { fontSize: "22px", lineHeight: "30px", margin: "0 0 16px" };
const paragraph: CSSProperties = { fontSize: "15px", lineHeight: "24px", margin: "0 0 16px" };
const footer: CSSProperties = { color: "#616e7c", fontSize: "13px", lineHeight: "20px", margin: "0 0 8px" };
const label: CSSProperties = { color: "#616e7c" };

/** Who reads it: a customer's footer leads to the account page and to support, staff's says who sent it. */
export type EmailAudience = "customer" | "staff";

/** The frame of every e-mail the site sends: the brand, a title, the content, and a footer for its reader. */
export function EmailLayout({
  site,
  preview,
  title: heading,
  audience = "customer",
  children,
}: {
  site: EmailSite;
  preview: string;
  title: string;
  audience?: EmailAudience;
  children: ReactNode;
}) {
  return (
    <Html lang="en">
      <Head />
      <Preview>{preview}</Preview>
      <Body style={page}>
        <Container style={card}>
          <Text style={brandLine}>{site.BRAND_NAME}</Text>
          <Heading as="h1" style={title}>
            {heading}
          </Heading>
          {children}
          <Hr />
          {audience === "customer" ? <CustomerFooter site={site} /> : <StaffFooter site={site} />}
        </Container>
      </Body>
    </Html>
  );
}

function CustomerFooter({ site }: { site: EmailSite }) {
  const account = accountUrl(site);
  return (
    <>
      <Text style={footer}>
        Your plan, devices and receipts: <Link href={account}>{account}</Link>
      </Text>
      <Text style={footer}>
        Need help? Reply to this e-mail or write to{" "}
        <Link href={`mailto:${site.SUPPORT_EMAIL}`}>{site.SUPPORT_EMAIL}</Link>.
      </Text>
      <Text style={footer}>The {site.BRAND_NAME} team</Text>
    </>
  );
}

function StaffFooter({ site }: { site: EmailSite }) {
  return <Text style={footer}>Sent by the {site.BRAND_NAME} site to its staff.</Text>;
}

export function Paragraph({ children }: { children: ReactNode }) {
  return <Text style={paragraph}>{children}</Text>;
}

/** "Label: value" lines, e.g. the plan and amount of a receipt. */
export function Facts({ rows }: { rows: Array<[label: string, value: string]> }) {
  return (
    <Section>
      <Text style={paragraph}>
        {rows.map(([name, value], index) => (
          <span key={name}>
            {index > 0 && <br />}
            <span style={label}>{name}:</span> {value}
          </span>
        ))}
      </Text>
    </Section>
  );
}

/** A sentence that ends in a visible link, e.g. "Download your config: https://…". */
export function LinkLine({ lead, href }: { lead: string; href: string }) {
  return (
    <Text style={paragraph}>
      {lead} <Link href={href}>{href}</Link>
    </Text>
  );
}
