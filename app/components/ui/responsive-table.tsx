import { Fragment, type ReactNode } from "react";
import { cn } from "#app/lib/utils.ts";
import { ScrollRegion } from "./scroll-region.tsx";

export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  className?: string;
}

/**
 * Rows as a table from the md breakpoint up, and as a list of cards below it (a phone at 360–390
 * px): each card is headed by `title` and lists every column as "header: value", so nothing is
 * cut off and the page never scrolls sideways. The table keeps a focusable scroller for the
 * widths between.
 */
export function ResponsiveTable<Row>({
  label,
  rows,
  rowKey,
  columns,
  title,
  tableClassName,
}: {
  /** Names the table's scroller and the list of cards. */
  label: string;
  rows: Row[];
  rowKey: (row: Row) => string;
  columns: Column<Row>[];
  /** A card's heading on a phone (e.g. the plan and the date), when no column serves as one. */
  title?: (row: Row) => ReactNode;
  tableClassName?: string;
}) {
  return (
    <>
      <ScrollRegion label={label} className="mt-4 hidden md:block">
        <table className={cn("w-full text-left text-sm", tableClassName)}>
          <thead className="border-b text-xs uppercase text-muted-foreground">
            <tr>
              {columns.map((column) => (
                <th key={column.header} scope="col" className="py-2 pr-4">
                  {column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={rowKey(row)} className="border-b align-top">
                {columns.map((column) => (
                  <td key={column.header} className={cn("py-2 pr-4", column.className)}>
                    {column.cell(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <ul aria-label={label} className="mt-4 grid gap-3 md:hidden">
        {rows.map((row) => (
          <li key={rowKey(row)} className="min-w-0 rounded-lg border p-3 text-sm">
            {title ? <div className="mb-2 font-medium">{title(row)}</div> : null}
            <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1">
              {columns.map((column) => (
                <Fragment key={column.header}>
                  <dt className="text-muted-foreground">{column.header}</dt>
                  <dd className="min-w-0">{column.cell(row)}</dd>
                </Fragment>
              ))}
            </dl>
          </li>
        ))}
      </ul>
    </>
  );
}
