/** Liveness; `service` lets `npm run doctor` tell this app from whatever else answers at PUBLIC_URL. */
export function loader() {
  return Response.json({ status: "ok", service: "naijalink" }, { headers: { "Cache-Control": "no-store" } });
}
