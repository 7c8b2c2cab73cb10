// The /admin/servers page's posts: each one's /api/admin/servers/* schema and domain call.
import type { AppServices } from "#server/services.ts";
import {
  changeClientSettingAsStaff,
  clientSettingFormSchema,
} from "#server/domain/vpn/client-settings-staff.ts";
import {
  addServerAsStaff,
  addServerSchema,
  moveDevicesAsStaff,
  rotateNodeTokenAsStaff,
  serverActionSchema,
  setEndpointAsStaff,
  setEndpointSchema,
  setStatusAsStaff,
} from "#server/domain/vpn/server-staff-actions.ts";
import {
  addStreamingServiceAsStaff,
  addStreamingServiceSchema,
  removeStreamingServiceAsStaff,
  removeStreamingServiceSchema,
} from "#server/domain/vpn/streaming-checks.ts";
import { staffIntent, type StaffIntent } from "#server/http/staff-form.ts";

const clientSetting = (services: AppServices, done: string) =>
  staffIntent({
    schema: clientSettingFormSchema,
    // The settings' own form schema: `intent` is part of it, an empty port list means none.
    fromForm: (form) => Object.fromEntries(form),
    run: (input, staff) => changeClientSettingAsStaff(services.db, staff, input),
    done,
  });

const status = (services: AppServices, to: "active" | "draining" | "disabled", done: string) =>
  staffIntent({
    schema: serverActionSchema,
    run: (input, staff) => setStatusAsStaff(services.db, services.config, staff, input, to),
    done,
  });

export const serverIntents = (services: AppServices): Record<string, StaffIntent> => ({
  "set-mtu": clientSetting(
    services,
    "MTU saved: its node's agent applies it within seconds (Node settings shows when).",
  ),
  "set-ports": clientSetting(
    services,
    "Alternate ports saved: its node's agent applies them within seconds (Node settings shows when).",
  ),
  "set-dns": clientSetting(
    services,
    "DNS saved: its node's agent applies it within seconds (Node settings shows when).",
  ),
  add: staffIntent({
    schema: addServerSchema,
    run: async (input, staff) => {
      const added = await addServerAsStaff(services.db, services.config, staff, input);
      services.logger.info({ vpnServer: added.server.name, staff: staff.id }, "VPN server added by staff");
      return added;
    },
    done: "Server added. Store its node token now.",
  }),
  "set-endpoint": staffIntent({
    schema: setEndpointSchema,
    run: (input, staff) => setEndpointAsStaff(services.db, staff, input),
    done: "Endpoint changed.",
  }),
  "rotate-token": staffIntent({
    schema: serverActionSchema,
    run: async (input, staff) => {
      const rotated = await rotateNodeTokenAsStaff(services.db, staff, input);
      services.logger.info(
        { vpnServer: rotated.server.name, staff: staff.id },
        "VPN node token rotated by staff",
      );
      return rotated;
    },
    done: "Token rotated. Store the new one now.",
  }),
  drain: status(services, "draining", "Server draining."),
  enable: status(services, "active", "Server enabled."),
  disable: status(services, "disabled", "Server disabled."),
  "add-streaming-service": staffIntent({
    schema: addStreamingServiceSchema,
    run: (input, staff) => addStreamingServiceAsStaff(services.db, staff, input),
    done: "Service added: each server's agent checks it at its next report.",
  }),
  "remove-streaming-service": staffIntent({
    schema: removeStreamingServiceSchema,
    run: (input, staff) => removeStreamingServiceAsStaff(services.db, staff, input),
    done: "Service removed: no server checks it any more.",
  }),
  "move-devices": staffIntent({
    schema: serverActionSchema,
    run: (input, staff) => moveDevicesAsStaff(services.db, services, staff, input),
    done: ({ remaining }) =>
      remaining > 0
        ? `Move finished. No other server has room for the last ${remaining}: they stay here.`
        : "Move finished.",
  }),
});
