import { useEffect, type ReactNode } from "react";
import { isRouteErrorResponse, Links, Meta, Outlet, Scripts, useMatches, useRouteError } from "react-router";
import { Toaster } from "sonner";
import enhancementScriptUrl from "virtual:enhancement-script";
import type { Route } from "./+types/root";
import stylesheet from "./app.css?url";
import { NotFound } from "./components/not-found.tsx";
import { ScrollToTop } from "./components/scroll-to-top.tsx";
import { SiteFooter } from "./components/site-footer.tsx";
import { SiteHeader } from "./components/site-header.tsx";
import { isStaticPage } from "./lib/static-page.ts";
import { publicConfig } from "#server/config.ts";

export const links: Route.LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "apple-touch-icon", href: "/apple-touch-icon.png" },
];

export function loader({ context }: Route.LoaderArgs) {
  return { publicConfig: publicConfig(context.services.config) };
}

export function Layout({ children }: { children: ReactNode }) {
  // Static pages get the enhancement script instead of React's (decision 012).
  const staticPage = isStaticPage(useMatches());
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <link rel="manifest" href="/site.webmanifest" />
        <meta name="theme-color" content="#00753f" />
        <Meta />
        <Links />
        {staticPage ? <script type="module" src={enhancementScriptUrl} /> : null}
      </head>
      <body className="flex min-h-screen flex-col">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-[60] focus:rounded focus:bg-background focus:p-2"
        >
          Skip to content
        </a>
        <SiteHeader staticPage={staticPage} />
        <main id="main" className="flex-1 pt-16">
          {children}
        </main>
        <SiteFooter />
        {staticPage ? null : (
          <>
            <Toaster richColors position="top-right" closeButton />
            <Scripts />
          </>
        )}
      </body>
    </html>
  );
}

export default function App() {
  useEffect(() => {
    // Browser tests wait for this before interacting.
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return (
    <>
      <ScrollToTop />
      <Outlet />
    </>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  const message = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : "Unknown error";
  const stack = import.meta.env.DEV && error instanceof Error ? error.stack : undefined;
  return (
    <section className="mx-auto max-w-3xl px-4 py-24">
      <h1 className="text-3xl font-bold">Unexpected Application Error!</h1>
      <p className="mt-4 text-lg text-muted-foreground">{message}</p>
      {stack ? <pre className="mt-6 overflow-x-auto rounded bg-muted p-4 text-xs">{stack}</pre> : null}
    </section>
  );
}
