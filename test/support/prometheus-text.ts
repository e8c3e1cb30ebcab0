/**
 * Reads Prometheus' text exposition (what GET /metrics answers) into samples, for assertions:
 * `value(text, "booking_gateway_bookings_total", { edge: "osbp" })` is the sum of the samples of
 * that name whose labels include the ones given (0 when there is none).
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (m === null) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? "").matchAll(LABEL))
      labels[k as string] = (v as string).replace(/\\(.)/g, "$1");
    out.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

/** The samples of `name` whose labels include `labels`. */
export function matching(text: string, name: string, labels: Record<string, string> = {}): Sample[] {
  return samples(text).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}

/** Their sum (0 when none). */
export function value(text: string, name: string, labels: Record<string, string> = {}): number {
  return matching(text, name, labels).reduce((sum, s) => sum + s.value, 0);
}
