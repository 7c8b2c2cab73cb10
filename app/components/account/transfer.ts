// "1.2 GB this period": the data a device moved in its subscription's current period.
import { formatDataAmount } from "#core/format.ts";
import type { AccountDevice } from "#server/domain/account/account.ts";

export function transferLabel(transfer: NonNullable<AccountDevice["transfer"]>): string {
  return `${formatDataAmount(transfer.downloadedBytes + transfer.uploadedBytes)} this period`;
}

export function transferDetail(transfer: NonNullable<AccountDevice["transfer"]>): string {
  return `${formatDataAmount(transfer.downloadedBytes)} downloaded, ${formatDataAmount(transfer.uploadedBytes)} uploaded`;
}
