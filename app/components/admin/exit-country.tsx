// Type-only: erased from the browser bundle.
import type { ServerHealth } from "#server/domain/ops/server-health.ts";

/** The country buyers are promised (server/domain/vpn/exit-country.ts's HOME_COUNTRY, which loads the database). */
const HOME_COUNTRY = "NG";

/** Where each exit address of a server appears to be, by the shipped country database (decision 130). */
export function ExitCountryFacts({ server }: { server: Pick<ServerHealth, "exitCountries"> }) {
  return (
    <>
      <dt className="text-muted-foreground">Exit addresses</dt>
      <dd data-testid="exit-countries">
        {server.exitCountries.length === 0 ? (
          <span className="text-yellow-700">
            none yet: /check cannot tell buyers they come through Nigeria
          </span>
        ) : (
          <ul>
            {server.exitCountries.map(({ address, country }) => (
              <li key={address}>
                <span className="break-all font-mono">{address}</span>{" "}
                {country === null ? (
                  <span className="text-muted-foreground">not in the country database</span>
                ) : country === HOME_COUNTRY ? (
                  <span className="text-green-700">appears in {country}</span>
                ) : (
                  <strong className="text-red-800" role="alert">
                    appears in {country}, not {HOME_COUNTRY}: buyers are promised a Nigerian address
                  </strong>
                )}
              </li>
            ))}
          </ul>
        )}
      </dd>
    </>
  );
}
