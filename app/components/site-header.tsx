import { Menu, ShieldCheck, X } from "lucide-react";
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { usePublicConfig } from "#app/lib/public-config.ts";

const anchorLinks = [
  { label: "Pricing", anchor: "pricing" },
  { label: "How It Works", anchor: "how-it-works" },
] as const;

// `document`: a static page, reached by loading the document, not by React.
const pageLinks = [
  { label: "Tutorial", to: "/tutorial", document: true },
  { label: "Blog", to: "/blog", document: false },
  { label: "Contact", to: "/contact", document: true },
] as const;

/**
 * The header of every page. On a hydrated page React runs the phone menu; on a static page
 * (`staticPage`) the enhancement script does, opening a copy of the menu kept in a template.
 * Without JavaScript the menu is a `<details>` disclosure inside `<noscript>`, which opens
 * without script, and the scripted button is hidden (`scripting: none`).
 */
export function SiteHeader({ staticPage = false }: { staticPage?: boolean }) {
  const { brandName } = usePublicConfig();
  const [menuOpen, setMenuOpen] = useState(false);

  useEffect(() => {
    if (!menuOpen) return;
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setMenuOpen(false);
      document.querySelector<HTMLElement>('button[aria-controls="mobile-menu"]')?.focus();
    };
    document.addEventListener("keydown", closeOnEscape);
    return () => document.removeEventListener("keydown", closeOnEscape);
  }, [menuOpen]);

  const linkClass = "text-sm font-medium text-foreground/80 transition-colors hover:text-primary";
  // The anchors are on the home page, a static page: a plain link loads it at the anchor, and
  // there the enhancement script scrolls smoothly instead.
  const links = (
    <>
      {anchorLinks.map((link) => (
        <a
          key={link.anchor}
          href={`/#${link.anchor}`}
          className={linkClass}
          onClick={() => setMenuOpen(false)}
        >
          {link.label}
        </a>
      ))}
      {pageLinks.map((link) => (
        <Link
          key={link.to}
          to={link.to}
          reloadDocument={link.document}
          className={linkClass}
          onClick={() => setMenuOpen(false)}
        >
          {link.label}
        </Link>
      ))}
      <Button asChild size="sm">
        <Link to="/get-started" onClick={() => setMenuOpen(false)}>
          Get Started
        </Link>
      </Button>
    </>
  );
  const mobileMenu = (
    <div id="mobile-menu" className="flex flex-col gap-4 border-t bg-background px-4 py-4 md:hidden">
      {links}
    </div>
  );

  return (
    <header className="fixed inset-x-0 top-0 z-50 border-b bg-background/95 backdrop-blur">
      <nav aria-label="Main" className="mx-auto flex h-16 max-w-6xl items-center justify-between px-4">
        <Link
          to="/"
          reloadDocument
          className="flex items-center gap-2 text-lg font-bold text-primary"
          onClick={() => setMenuOpen(false)}
        >
          <ShieldCheck aria-hidden="true" className="size-6" />
          {brandName}
        </Link>
        <div className="hidden items-center gap-6 md:flex">{links}</div>
        <noscript>
          <details className="group md:hidden" data-testid="mobile-menu-no-js">
            <summary
              aria-label="Menu"
              className="flex size-10 cursor-pointer list-none items-center justify-center rounded-md hover:bg-accent [&::-webkit-details-marker]:hidden"
            >
              <Menu aria-hidden="true" className="group-open:hidden" />
              <X aria-hidden="true" className="hidden group-open:block" />
            </summary>
            <div className="absolute inset-x-0 top-16 flex flex-col gap-4 border-t border-b bg-background px-4 py-4">
              {anchorLinks.map((link) => (
                <a key={link.anchor} href={`/#${link.anchor}`} className={linkClass}>
                  {link.label}
                </a>
              ))}
              {pageLinks.map((link) => (
                <a key={link.to} href={link.to} className={linkClass}>
                  {link.label}
                </a>
              ))}
              <Button asChild size="sm">
                <a href="/get-started">Get Started</a>
              </Button>
            </div>
          </details>
        </noscript>
        <Button
          variant="ghost"
          size="icon"
          className="group md:hidden [@media(scripting:none)]:hidden"
          aria-expanded={menuOpen}
          aria-controls="mobile-menu"
          aria-label={menuOpen ? "Close menu" : "Open menu"}
          onClick={() => setMenuOpen((open) => !open)}
        >
          <Menu aria-hidden="true" className="group-aria-expanded:hidden" />
          <X aria-hidden="true" className="hidden group-aria-expanded:block" />
        </Button>
      </nav>
      {menuOpen ? mobileMenu : null}
      {staticPage ? <template id="mobile-menu-template">{mobileMenu}</template> : null}
    </header>
  );
}
