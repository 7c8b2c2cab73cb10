// A page's own form, posted by the browser itself (no JavaScript needed): its fields are read,
// parsed with the endpoint's zod schema, and handed to the same domain function the JSON
// endpoint calls. A refusal comes back as `{ ok: false, error, message, values }` with its 4xx
// status, for the page to show next to the form; anything else propagates (a redirect, a 500).
// Only for forms without secrets: `values` echoes what was sent.
import { data } from "react-router";
import type { ZodType, z } from "zod";
import { DomainError } from "#server/domain/errors.ts";
import { ApiError, badRequest, parseInput, readFormFields, statusOf } from "./api.ts";

export interface FormRefusal {
  ok: false;
  error: string;
  message: string;
  /** The form's fields as sent, so a page drawn again without JavaScript keeps what was typed. */
  values: Record<string, string>;
}

/** The answer a page's action gives for a refused form (`values`: the fields to show again). */
export function formRefusal(error: ApiError | DomainError, values: Record<string, string> = {}) {
  const { status, headers } = statusOf(error);
  return data<FormRefusal>(
    { ok: false, error: error.error, message: error.message, values },
    { status, headers: { ...headers, "Cache-Control": "no-store" } },
  );
}

/**
 * Runs `handler` on the form's fields as `schema` reads them; refusals become `formRefusal`.
 * `precheck`: a refusal the page says before the schema's (the words its script uses).
 */
export async function pageFormAction<S extends ZodType, R>(
  request: Request,
  schema: S,
  handler: (input: z.infer<S>) => Promise<R>,
  precheck?: (fields: Record<string, string>) => string | null,
): Promise<R | ReturnType<typeof formRefusal>> {
  let fields: Record<string, string> = {};
  try {
    fields = await readFormFields(request);
    const refused = precheck?.(fields);
    if (refused) throw badRequest(refused);
    return await handler(parseInput(schema, fields) as z.infer<S>);
  } catch (error) {
    if (error instanceof ApiError || error instanceof DomainError) return formRefusal(error, fields);
    throw error;
  }
}
