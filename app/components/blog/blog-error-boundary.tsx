import { isRouteErrorResponse, useRouteError } from "react-router";
import { NotFound } from "#app/components/not-found.tsx";

/**
 * The blog routes' own boundary. It renders the same not-found page as the root for a 404,
 * and exists so that React Router sends the headers of a 304 thrown by the route's loader
 * (it only passes error headers to the route that catches the error). Anything else goes on
 * to the root boundary.
 */
export function BlogErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  throw error;
}
