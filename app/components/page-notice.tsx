import type { Flash } from "#server/http/flash.ts";
import { NOTICE_CLASS, NOTICE_TITLE_CLASS, PAGE_NOTICE_CLASS, noticeRole } from "#app/lib/notice.ts";

/** A flash on a static page, rendered for the request that carried it (the markup app/enhance/notice.ts builds for inline messages). */
export function PageNotice({ flash }: { flash: Flash }) {
  const role = noticeRole(flash);
  return (
    <div className={PAGE_NOTICE_CLASS} data-page-notice="">
      <div role={role}>
        <div className={NOTICE_CLASS[role]}>
          <p className={NOTICE_TITLE_CLASS}>{flash.title}</p>
          {flash.description ? <p>{flash.description}</p> : null}
        </div>
      </div>
    </div>
  );
}
