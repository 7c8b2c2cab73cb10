// Where each exit address appears to be (decision 130): looked up in an offline country database
// shipped as a dependency (@ip-location-db/geolite2-country-mmdb, read with `maxmind`), never on
// the internet. "Appears": such databases place an address by its registration and routing, which a
// provider may have filed elsewhere; /check still compares visitors with the exit addresses alone.
import { createRequire } from "node:module";
import type { CountryResponse } from "maxmind";
import { canonicalIpAddress } from "#agent/node-api.ts";

/** The country buyers are promised (ISO 3166-1 alpha-2). */
export const HOME_COUNTRY = "NG";

const DATABASE_FILE = "@ip-location-db/geolite2-country-mmdb/geolite2-country.mmdb";

export interface ExitCountry {
  address: string;
  /** ISO country code the database gives; null when the address is not in it (private, documentation ranges). */
  country: string | null;
}

export interface CountryDatabase {
  /** When the database was built (its metadata). */
  builtAt: Date;
  country(address: string): string | null;
}

let opened: Promise<CountryDatabase> | undefined;

/** The database, opened once per process (about 9 MB in memory). */
export function countryDatabase(): Promise<CountryDatabase> {
  opened ??= (async () => {
    const { Reader } = await import("maxmind");
    const fs = await import("node:fs/promises");
    const file = createRequire(import.meta.url).resolve(DATABASE_FILE);
    // ip-location-db's files hold only `country_code`, not MaxMind's own record shape.
    const reader = new Reader<CountryResponse>(await fs.readFile(file));
    return {
      builtAt: reader.metadata.buildEpoch,
      country(address) {
        const canonical = canonicalIpAddress(address);
        if (!canonical) return null;
        return (reader.get(canonical) as { country_code?: string } | null)?.country_code ?? null;
      },
    };
  })();
  opened.catch(() => (opened = undefined));
  return opened;
}

export async function exitCountries(addresses: readonly string[]): Promise<ExitCountry[]> {
  if (addresses.length === 0) return [];
  const database = await countryDatabase();
  return addresses.map((address) => ({ address, country: database.country(address) }));
}

/** Exit addresses the database places outside the home country (unknown ones are not counted). */
export const abroad = (exits: readonly ExitCountry[]) =>
  exits.filter((exit) => exit.country !== null && exit.country !== HOME_COUNTRY);

/** One address as the console, the doctor and the alert word it. */
export function describeExit({ address, country }: ExitCountry): string {
  if (country === null) return `${address} (not in the country database)`;
  return country === HOME_COUNTRY
    ? `${address} (appears in ${country})`
    : `${address} (appears in ${country}, not ${HOME_COUNTRY})`;
}
