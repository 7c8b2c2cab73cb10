import { Link } from "react-router";
import { usePublicConfig } from "#app/lib/public-config.ts";

export function SiteFooter() {
  const { brandName, supportEmail } = usePublicConfig();
  const linkClass = "text-sm text-slate-300 hover:text-white";
  return (
    <footer className="bg-brand-dark text-white">
      <div className="mx-auto max-w-6xl px-4 py-10">
        <div className="flex flex-col gap-6 md:flex-row md:items-start md:justify-between">
          <div>
            <p className="text-lg font-bold">{brandName}</p>
            <p className="mt-2 max-w-sm text-sm text-slate-300">
              Nigerian IP access for DSTV, Showmax, Startimes and Nigerian prices, from anywhere.
            </p>
          </div>
          <nav aria-label="Footer" className="flex flex-wrap gap-x-6 gap-y-3">
            <Link to="/blog" className={linkClass}>
              Blog
            </Link>
            <Link to="/terms" reloadDocument className={linkClass}>
              Terms of Service
            </Link>
            <Link to="/privacy" reloadDocument className={linkClass}>
              Privacy Policy
            </Link>
            <Link to="/refund-policy" reloadDocument className={linkClass}>
              Refund Policy
            </Link>
            <a href={`mailto:${supportEmail}`} className={linkClass}>
              Contact
            </a>
            <Link to="/account" className={linkClass}>
              My account
            </Link>
            <Link to="/reviews" reloadDocument className={linkClass}>
              Reviews
            </Link>
          </nav>
        </div>
        <div className="mt-8 flex flex-col gap-2 border-t border-white/15 pt-6 text-sm text-slate-300 md:flex-row md:justify-between">
          <p>© 2024 {brandName}. All rights reserved.</p>
          <p>Prices are in USD, Instant Config Delivery, 7-Day Guarantee</p>
        </div>
      </div>
    </footer>
  );
}
