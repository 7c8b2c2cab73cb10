// A strict parser of the Prometheus text exposition format 0.0.4 (no parser package is
// installed): every line must be a comment, a HELP or TYPE line, or a well-formed sample of the
// family its TYPE line announced; histograms must have ascending cumulative buckets ending at
// +Inf that equal their _count. Any deviation throws, naming the line.

export type MetricType = "counter" | "gauge" | "histogram" | "summary" | "untyped";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(["counter", "gauge", "histogram", "summary", "untyped"]);

/** As Prometheus reads values (Go's ParseFloat): NaN and Inf in any case, e.g. prom-client's "Nan". */
function parseValue(text: string, where: string): number {
  const word = text.toLowerCase();
  if (word === "+inf" || word === "inf") return Infinity;
  if (word === "-inf") return -Infinity;
  if (word === "nan") return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`${where}: bad value "${text}"`);
  return Number(text);
}

/** `{a="x",b="y"}` → labels; the label value escapes are \\, \" and \n only. */
function parseLabels(text: string, where: string): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let index = 1;
  for (;;) {
    if (text[index] === "}") return { labels, rest: text.slice(index + 1) };
    const name = /^[^=]*/.exec(text.slice(index))![0];
    if (!LABEL_NAME.test(name)) throw new Error(`${where}: bad label name "${name}"`);
    if (name in labels) throw new Error(`${where}: label ${name} twice`);
    index += name.length;
    if (text.slice(index, index + 2) !== '="') throw new Error(`${where}: expected =" after ${name}`);
    index += 2;
    let value = "";
    for (;;) {
      const char = text[index];
      if (char === undefined) throw new Error(`${where}: unterminated label value`);
      index += 1;
      if (char === '"') break;
      if (char === "\n") throw new Error(`${where}: raw newline in a label value`);
      if (char === "\\") {
        const escaped = text[index];
        index += 1;
        if (escaped === "\\") value += "\\";
        else if (escaped === '"') value += '"';
        else if (escaped === "n") value += "\n";
        else throw new Error(`${where}: bad escape \\${escaped}`);
      } else value += char;
    }
    labels[name] = value;
    if (text[index] === ",") index += 1;
    else if (text[index] !== "}") throw new Error(`${where}: expected , or } after label ${name}`);
  }
}

/** The family a sample name belongs to: histograms and summaries add suffixes. */
function familyOf(sampleName: string, families: Map<string, MetricFamily>): MetricFamily | undefined {
  if (families.has(sampleName)) return families.get(sampleName);
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!sampleName.endsWith(suffix)) continue;
    const family = families.get(sampleName.slice(0, -suffix.length));
    if (family && (family.type === "histogram" || (family.type === "summary" && suffix !== "_bucket")))
      return family;
  }
  return undefined;
}

function checkHistogram(family: MetricFamily) {
  const series = new Map<string, Sample[]>();
  const keyOf = (labels: Record<string, string>) =>
    JSON.stringify(
      Object.entries(labels)
        .filter(([name]) => name !== "le")
        .sort(),
    );
  for (const sample of family.samples) {
    const key = keyOf(sample.labels);
    series.set(key, [...(series.get(key) ?? []), sample]);
  }
  for (const [key, samples] of series) {
    const buckets = samples.filter((sample) => sample.name === `${family.name}_bucket`);
    const count = samples.find((sample) => sample.name === `${family.name}_count`);
    const sum = samples.find((sample) => sample.name === `${family.name}_sum`);
    if (!count || !sum || buckets.length === 0)
      throw new Error(`${family.name}${key}: a histogram needs buckets, _sum and _count`);
    let previousBound = -Infinity;
    let previousCount = 0;
    for (const bucket of buckets) {
      if (bucket.labels.le === undefined) throw new Error(`${family.name}${key}: a bucket without le`);
      const bound = parseValue(bucket.labels.le, family.name);
      if (bound <= previousBound) throw new Error(`${family.name}${key}: buckets not ascending`);
      if (bucket.value < previousCount) throw new Error(`${family.name}${key}: buckets not cumulative`);
      previousBound = bound;
      previousCount = bucket.value;
    }
    if (previousBound !== Infinity) throw new Error(`${family.name}${key}: no +Inf bucket`);
    if (previousCount !== count.value)
      throw new Error(`${family.name}${key}: +Inf bucket differs from _count`);
  }
}

export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  if (text.length > 0 && !text.endsWith("\n")) throw new Error("the exposition must end with a newline");
  const families = new Map<string, MetricFamily>();
  const finished = new Set<string>();
  let current: MetricFamily | undefined;
  const lines = text.split("\n").slice(0, -1);
  lines.forEach((line, number) => {
    const where = `line ${number + 1} (${line.slice(0, 80)})`;
    if (line.trim() === "") return;
    const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
    if (meta) {
      const [, keyword, name, rest = ""] = meta;
      if (!METRIC_NAME.test(name!)) throw new Error(`${where}: bad metric name`);
      let family = families.get(name!);
      if (finished.has(name!)) throw new Error(`${where}: family ${name} appears twice`);
      if (!family) {
        if (current) finished.add(current.name);
        family = { name: name!, type: "untyped", help: "", samples: [] };
        families.set(name!, family);
        current = family;
      }
      if (keyword === "TYPE") {
        if (!TYPES.has(rest as MetricType)) throw new Error(`${where}: unknown type "${rest}"`);
        if (family.samples.length) throw new Error(`${where}: TYPE after samples`);
        family.type = rest as MetricType;
      } else family.help = rest;
      return;
    }
    if (line.startsWith("#")) return;
    const name = /^[^{\s]+/.exec(line)?.[0] ?? "";
    if (!METRIC_NAME.test(name)) throw new Error(`${where}: bad metric name "${name}"`);
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith("{")) ({ labels, rest } = parseLabels(rest, where));
    const fields = /^ (\S+)(?: (-?\d+))?$/.exec(rest);
    if (!fields) throw new Error(`${where}: expected " value [timestamp]"`);
    const family = familyOf(name, families);
    if (!family) throw new Error(`${where}: sample of ${name} without a TYPE or HELP line before it`);
    if (family !== current) throw new Error(`${where}: samples of ${family.name} are not together`);
    family.samples.push({ name, labels, value: parseValue(fields[1]!, where) });
  });
  for (const family of families.values()) if (family.type === "histogram") checkHistogram(family);
  return families;
}

/** The value of the one sample with this name and these labels (among others). */
export function sampleValue(
  families: Map<string, MetricFamily>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const family of families.values())
    for (const sample of family.samples)
      if (
        sample.name === name &&
        Object.entries(labels).every(([label, value]) => sample.labels[label] === value)
      )
        return sample.value;
  return undefined;
}
