import { Link } from "react-router";
import { ACCOUNT_PATH } from "#core/device-actions.ts";

/**
 * A server or page message that names `/account`, with that address as a link (issue 24: a
 * refusal that sends the buyer somewhere must take them there). `plainAnchor` for places outside
 * the router's tree, such as toasts.
 */
export function MessageWithAccountLink({
  text,
  plainAnchor = false,
}: {
  text: string;
  plainAnchor?: boolean;
}) {
  // The page itself, not /account/receipts/… nor /api/account/….
  const parts = text.split(/(?<![\w/])\/account(?![\w/-])/);
  return (
    <>
      {parts.map((part, index) => (
        <span key={index}>
          {part}
          {index < parts.length - 1 ? (
            plainAnchor ? (
              <a href={ACCOUNT_PATH} className="font-medium underline underline-offset-2">
                {ACCOUNT_PATH}
              </a>
            ) : (
              <Link to={ACCOUNT_PATH} className="font-medium text-primary underline underline-offset-2">
                {ACCOUNT_PATH}
              </Link>
            )
          ) : null}
        </span>
      ))}
    </>
  );
}
