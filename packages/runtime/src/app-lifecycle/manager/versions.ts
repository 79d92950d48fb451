/**
 * Semantic Versioning 2.0.0 precedence (semver.org §11), for the manifest's `version`: updates must
 * move forward, so a validly signed older bundle cannot silently replace a newer one (RELIABILITY P3).
 * Build metadata is ignored, as the specification says.
 */

interface Parsed {
  readonly core: readonly [number, number, number];
  readonly pre: readonly string[];
}

function parse(version: string): Parsed | undefined {
  const withoutBuild = version.split("+", 1)[0] ?? "";
  const dash = withoutBuild.indexOf("-");
  const corePart = dash < 0 ? withoutBuild : withoutBuild.slice(0, dash);
  const prePart = dash < 0 ? "" : withoutBuild.slice(dash + 1);
  const numbers = corePart.split(".").map((n) => (/^(0|[1-9][0-9]*)$/.test(n) ? Number(n) : Number.NaN));
  if (numbers.length !== 3 || numbers.some((n) => !Number.isSafeInteger(n))) return undefined;
  return { core: [numbers[0]!, numbers[1]!, numbers[2]!], pre: prePart === "" ? [] : prePart.split(".") };
}

function compareIdentifiers(a: string, b: string): number {
  const an = /^[0-9]+$/.test(a);
  const bn = /^[0-9]+$/.test(b);
  if (an && bn) return Math.sign(Number(a) - Number(b));
  if (an) return -1;
  if (bn) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Negative when `a` precedes `b`, positive when it follows, 0 when equal in precedence. Strings that
 * are not semantic versions sort before every valid one (manifest validation refuses them anyway).
 */
export function compareVersions(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  if (pa === undefined || pb === undefined) return pa === pb ? 0 : pa === undefined ? -1 : 1;
  for (let i = 0; i < 3; i++) {
    const d = pa.core[i]! - pb.core[i]!;
    if (d !== 0) return Math.sign(d);
  }
  if (pa.pre.length === 0 || pb.pre.length === 0) return pa.pre.length === pb.pre.length ? 0 : pa.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(pa.pre.length, pb.pre.length); i++) {
    const d = compareIdentifiers(pa.pre[i]!, pb.pre[i]!);
    if (d !== 0) return d;
  }
  return Math.sign(pa.pre.length - pb.pre.length);
}
