import { errorResponse, notFound } from "#server/http/api.ts";

const answer = ({ request }: { request: Request }) =>
  errorResponse(notFound(`There is no API endpoint at ${new URL(request.url).pathname}.`));

export const loader = answer;
export const action = answer;
