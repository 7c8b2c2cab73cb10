import * as Dialog from "@radix-ui/react-dialog";
import { Menu, X } from "lucide-react";
import { useEffect, useState } from "react";
import { NavLink, useLocation } from "react-router";
import { EmailAddress } from "#app/components/ui/email-address.tsx";
import { cn } from "#app/lib/utils.ts";
import type { StaffRole } from "#server/domain/auth/staff.ts";
import { sectionsFor } from "./admin-nav.ts";

/** The console's sections as links, the current one marked (aria-current). */
export function AdminNav({ role }: { role: StaffRole | null }) {
  return (
    <nav aria-label="Admin">
      <ul className="flex flex-col gap-1 px-2 pb-4">
        {sectionsFor(role).map((section) => (
          <li key={section.to}>
            <NavLink
              to={section.to}
              end={section.to === "/admin"}
              className={({ isActive }) =>
                cn(
                  "block whitespace-nowrap rounded px-3 py-2 text-sm hover:bg-slate-800",
                  isActive && "bg-slate-800 font-semibold text-white",
                )
              }
            >
              {section.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function SignedInAs({ email, role }: { email: string | null; role: StaffRole | null }) {
  if (!email) return null;
  return (
    <p className="px-4 pb-4 text-xs text-slate-400">
      Signed in as <EmailAddress address={email} />
      {role ? ` (${role})` : ""}
    </p>
  );
}

/**
 * The console's menu on a phone: a drawer from the left (Radix Dialog: focus moves into it and
 * stays there, Escape and the close button shut it, focus returns to the Menu button). It closes
 * itself when a link in it is followed.
 */
export function AdminMenu({ email, role }: { email: string | null; role: StaffRole | null }) {
  const [open, setOpen] = useState(false);
  const { pathname } = useLocation();
  useEffect(() => setOpen(false), [pathname]);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger className="inline-flex items-center gap-2 rounded border border-slate-700 px-3 py-2 text-sm">
        <Menu aria-hidden="true" className="size-4" /> Menu
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/50" />
        <Dialog.Content
          aria-describedby={undefined}
          className="fixed inset-y-0 left-0 z-50 flex w-72 max-w-[85vw] flex-col overflow-y-auto bg-slate-950 text-slate-100 shadow-xl"
        >
          <div className="flex items-center justify-between gap-2 px-4 py-4">
            <Dialog.Title className="font-bold">Admin menu</Dialog.Title>
            <Dialog.Close className="inline-flex items-center gap-1 rounded border border-slate-700 px-2 py-1 text-sm">
              <X aria-hidden="true" className="size-4" /> Close
            </Dialog.Close>
          </div>
          <AdminNav role={role} />
          <SignedInAs email={email} role={role} />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
