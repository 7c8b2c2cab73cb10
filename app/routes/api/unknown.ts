import { errorResponse } from "#server/http/api.ts";
import { notFound } from "#server/domain/errors.ts";

const answer = ({ url }: { url: URL }) =>
  errorResponse(notFound(`There is no API endpoint at ${url.pathname}.`));

export const loader = answer;
export const action = answer;
