/**
 * Just enough of Vitest's API to run a shared contract suite inside a browser page: `describe`, `it`
 * (and `it.each`), `beforeEach`/`afterEach`, and the `expect` matchers the store contract uses. The page
 * runs every registered case in order and reports each outcome; the Node-side test asserts on them.
 */
type Fn = () => unknown | Promise<unknown>;
interface Case {
  readonly name: string;
  readonly fn: Fn;
  readonly before: readonly Fn[];
  readonly after: readonly Fn[];
}

const cases: Case[] = [];
const stack: { name: string; before: Fn[]; after: Fn[] }[] = [{ name: "", before: [], after: [] }];

export function describe(name: string, body: () => void): void {
  stack.push({ name, before: [], after: [] });
  try {
    body();
  } finally {
    stack.pop();
  }
}

function register(name: string, fn: Fn): void {
  cases.push({
    name: [...stack.map((s) => s.name).filter((n) => n !== ""), name].join(" > "),
    fn,
    before: stack.flatMap((s) => s.before),
    after: stack.flatMap((s) => s.after).reverse(),
  });
}

function format(template: string, args: readonly unknown[]): string {
  let i = 0;
  return template.replace(/%[sdij]/g, () => String(args[i++]));
}

export const it = Object.assign(register, {
  each:
    <T>(table: readonly T[]) =>
    (name: string, fn: (...args: unknown[]) => unknown) => {
      for (const row of table) {
        const args = Array.isArray(row) ? row : [row];
        register(format(name, args), () => fn(...args));
      }
    },
});
export const test = it;

export function beforeEach(fn: Fn): void {
  stack.at(-1)!.before.push(fn);
}
export function afterEach(fn: Fn): void {
  stack.at(-1)!.after.push(fn);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/** Vitest's `toEqual`: recursive, ignoring properties whose value is undefined. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) {
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    return x.length === y.length && x.every((v, i) => v === y[i]) && a.constructor === b.constructor;
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) if (!deepEqual(a[key], b[key])) return false;
    return true;
  }
  return false;
}

function matchesObject(actual: unknown, expected: unknown): boolean {
  if (!isPlainObject(expected)) return deepEqual(actual, expected);
  if (typeof actual !== "object" || actual === null) return false;
  const record = actual as Record<string, unknown>;
  return Object.keys(expected).every((key) => matchesObject(record[key], expected[key]));
}

const show = (value: unknown): string => {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (v instanceof Uint8Array ? `Uint8Array(${[...v].join(",")})` : v));
  } catch {
    return String(value);
  }
};

function matchers(actual: unknown, negate: boolean) {
  const check = (pass: boolean, message: string) => {
    if (pass === negate) throw new Error(`${negate ? "not: " : ""}${message}`);
  };
  return {
    toBe: (expected: unknown) => check(Object.is(actual, expected), `expected ${show(actual)} to be ${show(expected)}`),
    toEqual: (expected: unknown) => check(deepEqual(actual, expected), `expected ${show(actual)} to equal ${show(expected)}`),
    toStrictEqual: (expected: unknown) => check(deepEqual(actual, expected), `expected ${show(actual)} to equal ${show(expected)}`),
    toMatchObject: (expected: unknown) => check(matchesObject(actual, expected), `expected ${show(actual)} to match ${show(expected)}`),
    toContain: (item: unknown) => check((actual as { includes(v: unknown): boolean }).includes(item), `expected ${show(actual)} to contain ${show(item)}`),
    toBeInstanceOf: (type: abstract new (...args: never[]) => unknown) => check(actual instanceof type, `expected ${show(actual)} to be an instance of ${type.name}`),
    toBeUndefined: () => check(actual === undefined, `expected ${show(actual)} to be undefined`),
    toBeDefined: () => check(actual !== undefined, "expected a defined value"),
    toHaveLength: (length: number) => check((actual as { length: number }).length === length, `expected length ${length}, got ${(actual as { length: number }).length}`),
    toBeGreaterThan: (n: number) => check((actual as number) > n, `expected ${show(actual)} > ${n}`),
    toBeTruthy: () => check(Boolean(actual), `expected ${show(actual)} to be truthy`),
  };
}

export function expect(actual: unknown) {
  return Object.assign(matchers(actual, false), {
    not: matchers(actual, true),
    rejects: {
      async toMatchObject(expected: unknown) {
        const outcome = await (actual as Promise<unknown>).then(
          (value) => ({ ok: true as const, value }),
          (error: unknown) => ({ ok: false as const, error }),
        );
        if (outcome.ok) throw new Error(`expected a rejection, got ${show(outcome.value)}`);
        matchers(outcome.error, false).toMatchObject(expected);
      },
    },
  });
}

export const vi = new Proxy({}, { get: () => () => { throw new Error("vi is not available in the browser shim"); } });

export interface CaseResult {
  readonly name: string;
  readonly ok: boolean;
  readonly error?: string;
  readonly ms: number;
}

/** Runs every registered case in order (hooks included) and returns the outcomes. */
export async function runRegistered(): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of cases) {
    const started = performance.now();
    let error: string | undefined;
    try {
      for (const hook of c.before) await hook();
      await c.fn();
    } catch (e) {
      error = e instanceof Error ? `${e.message}` : String(e);
    }
    for (const hook of c.after) {
      try {
        await hook();
      } catch (e) {
        error ??= `afterEach: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
    results.push({ name: c.name, ok: error === undefined, ms: Math.round(performance.now() - started), ...(error === undefined ? {} : { error }) });
  }
  return results;
}
