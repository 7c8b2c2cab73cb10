import { useRouteLoaderData } from "react-router";
import { useHydrated } from "#app/components/account/account-form.tsx";
import { NOTICE_CLASS, noticeRole } from "#app/lib/notice.ts";
import type { Flash } from "#server/http/flash.ts";

/**
 * What a form's redirect left for this page, before (or without) JavaScript; once the page runs,
 * the root's toast says it instead.
 */
export function FlashNotice({ testId }: { testId: string }) {
  const flash = useRouteLoaderData<{ flash: Flash | null }>("root")?.flash;
  const hydrated = useHydrated();
  if (!flash || hydrated) return null;
  const role = noticeRole(flash);
  return (
    <div role={role} className={NOTICE_CLASS[role]} data-testid={testId}>
      <p className="font-semibold">{flash.title}</p>
      {flash.description ? <p>{flash.description}</p> : null}
    </div>
  );
}
