import { data } from "react-router";
import { NotFound } from "#app/components/not-found.tsx";
import type { Route } from "./+types/not-found";

export { handle } from "#core/static-page.ts";

export const meta: Route.MetaFunction = () => [
  { title: "Page not found | NaijaLink" },
  { name: "robots", content: "noindex" },
];

export function loader({ url, context }: Route.LoaderArgs) {
  const path = url.pathname;
  if (path !== "/404") context.services.logger.warn({ path }, "404: no route for path");
  return data({ path }, { status: 404 });
}

export default function NotFoundRoute() {
  return <NotFound />;
}
