import { useEffect, useRef, type ReactNode } from "react";
import {
  data,
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  useMatches,
  useRouteError,
  useRouteLoaderData,
} from "react-router";
import { toast, Toaster } from "sonner";
import enhancementScriptUrl from "virtual:enhancement-script";
import type { Route } from "./+types/root";
import stylesheet from "./app.css?url";
import { NotFound } from "./components/not-found.tsx";
import { PageNotice } from "./components/page-notice.tsx";
import { ScrollToTop } from "./components/scroll-to-top.tsx";
import { SiteFooter } from "./components/site-footer.tsx";
import { SiteHeader } from "./components/site-header.tsx";
import { carriesFlash, clearFlashCookie, readFlash, type Flash } from "#server/http/flash.ts";
import { isStaticPage, loadsAsDocument } from "#core/static-page.ts";
import { ADMIN_LAYOUT_ROUTE_ID } from "./components/admin/admin-nav.ts";
import { publicConfig } from "#server/config.ts";

export const links: Route.LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "apple-touch-icon", href: "/apple-touch-icon.png" },
];

/**
 * The public config, and the flash a redirect left for this page: read once (it is cleared), and
 * only when this server signed it; a forged or altered one is cleared and shows nothing.
 */
export function loader({ request, context }: Route.LoaderArgs) {
  const cookies = request.headers.get("Cookie");
  const flash = readFlash(context.services, cookies);
  return data(
    { publicConfig: publicConfig(context.services.config), flash },
    carriesFlash(cookies) ? { headers: { "Set-Cookie": clearFlashCookie(context.services) } } : undefined,
  );
}

export function Layout({ children }: { children: ReactNode }) {
  // Static pages get the enhancement script instead of React's (decision 012). Only the server
  // renders one: in the browser, React meets a static route only after a client-side
  // navigation, which App turns into a document load — or, for a blog page,
  // renders as a hydrated page.
  const matches = useMatches();
  const staticPage = import.meta.env.SSR && isStaticPage(matches);
  // The staff console has its own navigation (routes/admin-layout.tsx), not the storefront's.
  const adminShell = matches.some((match) => match.id === ADMIN_LAYOUT_ROUTE_ID);
  const rootData = useRouteLoaderData<typeof loader>("root");
  const flash = rootData?.flash;
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
        {adminShell ? null : <SiteHeader staticPage={staticPage} />}
        <main id="main" className={adminShell ? "flex-1" : "flex-1 pt-16"}>
          {/* A request carrying a flash is rendered for itself, never answered from the page cache. */}
          {staticPage && flash ? <PageNotice flash={flash} /> : null}
          {rootData?.publicConfig.demo ? <DemoBanner /> : null}
          {children}
        </main>
        {adminShell ? null : <SiteFooter />}
        {staticPage ? null : (
          <>
            {/* The console's header holds its buttons (the phone's Menu among them): its toasts keep to the bottom. */}
            <Toaster richColors position={adminShell ? "bottom-right" : "top-right"} closeButton />
            <Scripts />
          </>
        )}
      </body>
    </html>
  );
}

export default function App({ loaderData }: Route.ComponentProps) {
  const matches = useMatches();
  const toStaticPage = !import.meta.env.SSR && loadsAsDocument(matches);
  const { flash } = loaderData;
  const handledFlash = useRef<Flash | null>(null);
  useHydratedMarker();
  useEffect(() => {
    // The loader's data outlives navigations that do not revalidate it: show a flash once.
    const fresh = flash && flash !== handledFlash.current ? flash : null;
    handledFlash.current = flash;
    if (toStaticPage) {
      // A redirect that carries a flash to a static page is a document redirect
      // (`redirectDocument`), so the server renders the message there; none is lost here.
      window.location.reload();
    } else if (fresh) {
      showToast(fresh);
    }
  }, [toStaticPage, flash]);
  // A client-side navigation (a `<Link>`, `navigate()`, a loader's redirect) reached a static
  // page: the effect loads it as a document (history already holds its URL), so it is always
  // the server's HTML with its enhancement script, never a React render without its behaviour.
  if (toStaticPage) return null;
  return (
    <>
      <ScrollToTop />
      <Outlet />
    </>
  );
}

/** Browser tests wait for this before interacting; the error boundary sets it too, in App's place. */
function useHydratedMarker(): void {
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
}

/** Demo mode: nobody should mistake the simulated checkout for a real store. */
function DemoBanner() {
  return (
    <p
      role="note"
      className="border-b border-amber-300 bg-amber-100 px-4 py-1 text-center text-sm text-amber-950"
    >
      <strong>Demo store:</strong> payments are simulated
    </p>
  );
}

function showToast({ type, title, description }: Flash): void {
  const show = type === "error" ? toast.error : type === "success" ? toast.success : toast.info;
  show(title, { description });
}

export function ErrorBoundary() {
  const error = useRouteError();
  useHydratedMarker();
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
