/**
 * Smooth freehand strokes: raw pointer samples are thinned (a point closer than `minDistance` to
 * the last kept one adds nothing but jitter), rounded, and drawn as quadratic curves through the
 * midpoints of consecutive samples, with each sample as the control point. The curve is then
 * continuous and tangent-continuous however jagged the input, and passes through the first and
 * last sample. Each segment's width follows the pen pressure at its control point.
 */
import { round1, round2 } from "./document.js";

export interface Sample {
  readonly x: number;
  readonly y: number;
  /** 0–1; mice report 0.5 while a button is down, 0 when the device has no pressure. */
  readonly pressure: number;
}

export interface CurveSegment {
  readonly from: readonly [number, number];
  readonly control: readonly [number, number];
  readonly to: readonly [number, number];
  readonly width: number;
}

/** Pressure a device reports as 0 (no sensor) is drawn as a firm, mouse-like 0.5. */
export function normalizePressure(pressure: number): number {
  if (!Number.isFinite(pressure) || pressure <= 0) return 0.5;
  return Math.min(1, pressure);
}

/** Width at a pressure: half the base width at a feather touch, 1.5× at full press. */
export function pressureWidth(base: number, pressure: number): number {
  return base * (0.5 + normalizePressure(pressure));
}

/** Thins and rounds samples into the flat `[x, y, p, …]` form a stroke stores. Keeps the last sample so the stroke ends where the pen lifted. */
export function compactSamples(samples: readonly Sample[], minDistance = 1.5): number[] {
  const kept: Sample[] = [];
  for (const s of samples) {
    const last = kept[kept.length - 1];
    if (last === undefined || Math.hypot(s.x - last.x, s.y - last.y) >= minDistance) kept.push(s);
  }
  const end = samples[samples.length - 1];
  if (end !== undefined && kept[kept.length - 1] !== end) {
    if (kept.length > 1) kept[kept.length - 1] = end;
    else kept.push(end);
  }
  return kept.flatMap((s) => [round1(s.x), round1(s.y), round2(normalizePressure(s.pressure))]);
}

/** The curve through a stroke's flat points. One point gives one zero-length segment (a dot). */
export function strokeSegments(points: readonly number[], baseWidth: number): CurveSegment[] {
  const n = Math.floor(points.length / 3);
  if (n === 0) return [];
  const at = (i: number): [number, number, number] => [points[i * 3]!, points[i * 3 + 1]!, points[i * 3 + 2]!];
  if (n === 1) {
    const [x, y, p] = at(0);
    return [{ from: [x, y], control: [x, y], to: [x, y], width: pressureWidth(baseWidth, p) }];
  }
  if (n === 2) {
    const [x0, y0, p0] = at(0);
    const [x1, y1, p1] = at(1);
    return [{ from: [x0, y0], control: [(x0 + x1) / 2, (y0 + y1) / 2], to: [x1, y1], width: pressureWidth(baseWidth, (p0 + p1) / 2) }];
  }
  const segments: CurveSegment[] = [];
  const [sx, sy] = at(0);
  let from: [number, number] = [sx, sy];
  for (let i = 1; i < n - 1; i++) {
    const [cx, cy, cp] = at(i);
    const [nx, ny] = at(i + 1);
    const to: [number, number] = i === n - 2 ? [nx, ny] : [(cx + nx) / 2, (cy + ny) / 2];
    segments.push({ from, control: [cx, cy], to, width: pressureWidth(baseWidth, cp) });
    from = to;
  }
  return segments;
}
