import { useId } from "react";

export interface DailyBar {
  /** YYYY-MM-DD (UTC). */
  day: string;
  value: number;
}

const shortDay = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
const dayLabel = (day: string) => shortDay.format(new Date(`${day}T00:00:00Z`));

/**
 * A bar per day as inline SVG (no chart library): the picture for sighted staff, its figures as
 * a table for everyone else (decision 076).
 */
export function DailyBarChart({ title, bars, unit }: { title: string; bars: DailyBar[]; unit: string }) {
  const titleId = useId();
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  const total = bars.reduce((sum, bar) => sum + bar.value, 0);
  const width = 300;
  const height = 80;
  const step = width / Math.max(1, bars.length);
  const summary = `${title}: ${total} ${unit} over ${bars.length} days, at most ${max} in a day.`;
  return (
    <figure className="rounded-lg border p-4">
      <figcaption id={titleId} className="font-semibold">
        {title}
      </figcaption>
      <svg
        viewBox={`0 0 ${width} ${height + 12}`}
        role="img"
        aria-labelledby={titleId}
        className="mt-3 h-32 w-full"
        preserveAspectRatio="none"
      >
        <title>{summary}</title>
        {bars.map((bar, index) => {
          const barHeight = (bar.value / max) * height;
          return (
            <rect
              key={bar.day}
              x={index * step + step * 0.15}
              y={height - barHeight}
              width={step * 0.7}
              height={Math.max(barHeight, bar.value > 0 ? 1 : 0)}
              className="fill-primary"
            >
              <title>{`${dayLabel(bar.day)}: ${bar.value} ${unit}`}</title>
            </rect>
          );
        })}
        <line x1="0" y1={height + 0.5} x2={width} y2={height + 0.5} className="stroke-muted-foreground" />
      </svg>
      <div className="mt-1 flex justify-between text-xs text-muted-foreground" aria-hidden="true">
        <span>{bars[0] ? dayLabel(bars[0].day) : ""}</span>
        <span>{bars.at(-1) ? dayLabel(bars.at(-1)!.day) : ""}</span>
      </div>
      <details className="mt-2 text-sm">
        <summary className="cursor-pointer">Show the figures as a table</summary>
        <table className="mt-2 w-full text-left">
          <caption className="sr-only">{title}</caption>
          <thead>
            <tr>
              <th className="pr-4">Day (UTC)</th>
              <th>{unit[0]!.toUpperCase() + unit.slice(1)}</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((bar) => (
              <tr key={bar.day}>
                <td className="pr-4">{dayLabel(bar.day)}</td>
                <td>{bar.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
