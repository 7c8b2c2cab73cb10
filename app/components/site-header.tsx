import { Menu, ShieldCheck, X } from "lucide-react";
import { useState, type MouseEvent } from "react";
import { Link, useLocation, useNavigate } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { usePublicConfig } from "#app/lib/public-config.ts";

const anchorLinks = [
  { label: "Pricing", anchor: "pricing" },
  { label: "How It Works", anchor: "how-it-works" },
] as const;

const pageLinks = [
  { label: "Tutorial", to: "/tutorial" },
  { label: "Blog", to: "/blog" },
  { label: "Contact", to: "/contact" },
] as const;

export function SiteHeader() {
  const { brandName } = usePublicConfig();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  const navigate = useNavigate();

  // On the home page an anchor scrolls smoothly; elsewhere it goes to the home page plus the anchor.
  const followAnchor = (event: MouseEvent<HTMLAnchorElement>, anchor: string) => {
    setMenuOpen(false);
    event.preventDefault();
    if (location.pathname === "/") {
      document.getElementById(anchor)?.scrollIntoView({ behavior: "smooth", block: "start" });
      window.history.replaceState(window.history.state, "", `/#${anchor}`);
    } else {
      navigate(`/#${anchor}`);
    }
  };

  const linkClass = "text-sm font-medium text-foreground/80 transition-colors hover:text-primary";
  const links = (
    <>
      {anchorLinks.map((link) => (
        <a
          key={link.anchor}
          href={`/#${link.anchor}`}
          className={linkClass}
          onClick={(event) => followAnchor(event, link.anchor)}
        >
          {link.label}
        </a>
      ))}
      {pageLinks.map((link) => (
        <Link key={link.to} to={link.to} className={linkClass} onClick={() => setMenuOpen(false)}>
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

  return (
    <header className="fixed inset-x-0 top-0 z-50 border-b bg-background/95 backdrop-blur">
      <nav aria-label="Main" className="mx-auto flex h-16 max-w-6xl items-center justify-between px-4">
        <Link
          to="/"
          className="flex items-center gap-2 text-lg font-bold text-primary"
          onClick={() => setMenuOpen(false)}
        >
          <ShieldCheck aria-hidden="true" className="size-6" />
          {brandName}
        </Link>
        <div className="hidden items-center gap-6 md:flex">{links}</div>
        <Button
          variant="ghost"
          size="icon"
          className="md:hidden"
          aria-expanded={menuOpen}
          aria-controls="mobile-menu"
          aria-label={menuOpen ? "Close menu" : "Open menu"}
          onClick={() => setMenuOpen((open) => !open)}
        >
          {menuOpen ? <X aria-hidden="true" /> : <Menu aria-hidden="true" />}
        </Button>
      </nav>
      {menuOpen ? (
        <div id="mobile-menu" className="flex flex-col gap-4 border-t bg-background px-4 py-4 md:hidden">
          {links}
        </div>
      ) : null}
    </header>
  );
}
