/** A server's region as a buyer reads it: "ng-lagos" is "Lagos, Nigeria"; any other shape as it is. */
export function regionLabel(region: string): string {
  const city = /^ng-([a-z]+(?:-[a-z]+)*)$/.exec(region)?.[1];
  if (!city) return region;
  const words = city.split("-").map((word) => word[0]!.toUpperCase() + word.slice(1));
  return `${words.join(" ")}, Nigeria`;
}
