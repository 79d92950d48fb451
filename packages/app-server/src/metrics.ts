/**
 * The server's metrics, served at `GET /metrics` in the Prometheus text format (version 0.0.4):
 * counters and a histogram kept as things happen, gauges read when scraped.
 */

type Labels = Readonly<Record<string, string>>;

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
const labelText = (labels: Labels | undefined): string => {
  const entries = labels === undefined ? [] : Object.entries(labels);
  return entries.length === 0 ? "" : `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`;
};
const number = (n: number): string => (n === Infinity ? "+Inf" : String(n));

export class Counter {
  private value = 0;
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  inc(by = 1): void {
    this.value += by;
  }
  get(): number {
    return this.value;
  }
  render(): string[] {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`, `${this.name} ${number(this.value)}`];
  }
}

/** A value read at scrape time, one sample per label set. */
export class Gauge {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => ReadonlyArray<readonly [Labels | undefined, number]>,
  ) {}
  render(): string[] {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`, ...this.read().map(([labels, value]) => `${this.name}${labelText(labels)} ${number(value)}`)];
  }
}

export class Histogram {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;
  constructor(
    readonly name: string,
    readonly help: string,
    /** Upper bounds, ascending; `+Inf` is implied. */
    private readonly buckets: readonly number[],
  ) {
    this.counts = buckets.map(() => 0);
  }
  observe(value: number): void {
    this.sum += value;
    this.count++;
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) this.counts[i]!++;
  }
  render(): string[] {
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} histogram`,
      ...this.buckets.map((bound, i) => `${this.name}_bucket{le="${number(bound)}"} ${this.counts[i]}`),
      `${this.name}_bucket{le="+Inf"} ${this.count}`,
      `${this.name}_sum ${this.sum}`,
      `${this.name}_count ${this.count}`,
    ];
  }
}

/** What the server counts as it runs; the gauges are added by whoever can read them. */
export class ServerMetrics {
  readonly eventsAppended = new Counter("lineup_events_appended_total", "Session events committed to the log.");
  readonly eventsFannedOut = new Counter("lineup_events_fanned_out_total", "Session event frames sent to subscribers.");
  readonly commitSeconds = new Histogram("lineup_commit_duration_seconds", "Time to run and commit one write transaction (a batch of writes).", [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
  ]);
  readonly overloads = new Counter("lineup_overloaded_total", "Requests refused with -32001 overloaded (the connection's send queue was full).");
  readonly slowConsumers = new Counter("lineup_slow_consumers_closed_total", "Connections closed with 4008 for staying saturated.");
  readonly heartbeatTimeouts = new Counter("lineup_heartbeat_timeouts_total", "Connections closed because they stopped answering pings.");
  private readonly gauges: Gauge[] = [];

  gauge(name: string, help: string, read: () => ReadonlyArray<readonly [Labels | undefined, number]>): void {
    this.gauges.push(new Gauge(name, help, read));
  }

  /** The exposition text. */
  render(): string {
    const metrics = [this.eventsAppended, this.eventsFannedOut, this.commitSeconds, this.overloads, this.slowConsumers, this.heartbeatTimeouts, ...this.gauges];
    return `${metrics.flatMap((m) => m.render()).join("\n")}\n`;
  }
}
