import { formatLongDate } from "#core/format.ts";
import type { EmailData } from "../email-data.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import { accountUrl, EmailLayout, Facts, LinkLine, Paragraph, type EmailSite } from "./layout.tsx";

export type PlanChanged = EmailData<"plan-changed">;

const TITLES: Record<PlanChanged["kind"], (change: PlanChanged) => string> = {
  upgrade: (change) => `You are now on ${change.toPlanName}`,
  downgrade: (change) => `You are now on ${change.toPlanName}`,
  switch: (change) => `You are now on ${change.toPlanName}`,
  "pass-extend": () => "Your Unlock Pass has 7 more days",
  "pass-to-subscription": (change) => `Your pass is now ${change.toPlanName}`,
};

function amountLine(change: PlanChanged): string {
  if (change.amount === null) return "No charge";
  if (change.direction === "credited") return `${change.amount} credited to your next invoice`;
  return change.chargedNow ? `${change.amount} charged now` : `${change.amount} added to your next invoice`;
}

export function PlanChangedEmail({ site, change }: { site: EmailSite; change: PlanChanged }) {
  const title = TITLES[change.kind](change);
  return (
    <EmailLayout site={site} preview={`${change.fromPlanName} → ${change.toPlanName}.`} title={title}>
      <Paragraph>
        {change.byStaff ? "Our support team changed your plan. " : ""}Your devices keep working.
      </Paragraph>
      <Facts
        rows={[
          ["From", change.fromPlanName],
          ["To", change.toPlanName],
          ["Price difference", amountLine(change)],
          ["Devices", `Up to ${change.deviceLimit}`],
          [change.oneTime ? "Access until" : "Renews on", formatLongDate(change.periodEndsAt)],
        ]}
      />
      {change.revokedDevices.length ? (
        <Paragraph>
          These devices were removed to fit the new plan and no longer connect:{" "}
          {change.revokedDevices.join(", ")}.
        </Paragraph>
      ) : null}
      <LinkLine lead="Your account:" href={accountUrl(site)} />
    </EmailLayout>
  );
}

export function planChangedEmail(site: EmailSite, change: PlanChanged): Promise<RenderedEmail> {
  return renderEmail(
    `Your ${site.BRAND_NAME} plan: ${TITLES[change.kind](change)}`,
    <PlanChangedEmail site={site} change={change} />,
  );
}
