import type { ComponentChildren } from "preact";
import { useCallback, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { isPinnedToBottom, prefixSums, sliceWindow } from "./windowing.js";

export interface TimelineItem {
  readonly key: string;
}

interface Props<T extends TimelineItem> {
  readonly items: readonly T[];
  readonly render: (item: T) => ComponentChildren;
  /** Called when the person scrolls near the top and older history may exist. */
  readonly onNearTop?: () => void;
  readonly label: string;
  /** Default row height before a row is measured. */
  readonly estimate?: number;
  /** A new value pins the log to the bottom again (the person sent something: they want to see it). */
  readonly pinKey?: string | undefined;
}

const OVERSCAN_PX = 800;
const NEAR_TOP_PX = 200;

/**
 * A windowed log: only the rows intersecting the viewport (plus overscan) are in the DOM, the rest are
 * spacer height from measured (or estimated) row heights. It stays pinned to the bottom while the person
 * is there, and keeps the visible rows still when older rows are prepended.
 */
export function Timeline<T extends TimelineItem>({ items, render, onNearTop, label, estimate = 72, pinKey }: Props<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string, number>());
  const [measureVersion, setMeasureVersion] = useState(0);
  const [viewport, setViewport] = useState({ top: 0, height: 600 });
  const pinned = useRef(true);
  /** The scroll position at the last scroll event or programmatic scroll: only a move up unpins. */
  const lastTop = useRef(0);
  /**
   * The row at the top of the screen and its distance below the viewport's top, as the person last saw it:
   * whatever changes above it (rows mounted again at another height and growing, rows measured for the
   * first time, older history prepended) the log scrolls so that this row stays where it was. Taken again
   * after each scroll and each settled render.
   */
  const anchor = useRef<{ key: string; offset: number } | undefined>(undefined);
  // Rows that change height after they rendered (an image or a preview loading, a card opening) are
  // measured again, so the log stays pinned to the bottom and the spacers stay true.
  const rowObserver = useRef<ResizeObserver | undefined>(undefined);
  const observed = useRef(new Set<HTMLElement>());

  const sums = useMemo(() => prefixSums(items.length, (i) => heights.current.get(items[i]!.key) ?? estimate), [items, measureVersion, estimate]);
  // Older rows prepended: the window is cut where the anchor row will be scrolled to, not where the old
  // scroll position now points, so the rows on screen stay mounted (a view mounted again would start small).
  const firstKey = items[0]?.key;
  const previousFirst = useRef(firstKey);
  let sliceTop = viewport.top;
  if (previousFirst.current !== firstKey && anchor.current !== undefined && !pinned.current) {
    const held = anchor.current;
    const index = items.findIndex((item) => item.key === held.key);
    if (index >= 0) sliceTop = Math.max(0, sums[index]! - held.offset);
  }
  previousFirst.current = firstKey;
  const slice = sliceWindow(sums, sliceTop, viewport.height, OVERSCAN_PX);

  const pinnedFor = useRef(pinKey);
  if (pinnedFor.current !== pinKey) {
    pinnedFor.current = pinKey;
    pinned.current = true;
  }

  /**
   * Scrolls so that the anchor row is where the person last saw it (not while pinned to the bottom). False
   * when the row is not rendered and was placed by the model's heights: the next render settles it.
   */
  const holdAnchor = (el: HTMLElement): boolean => {
    const held = anchor.current;
    if (held === undefined || pinned.current) return true;
    const row = rowElement(el, held.key);
    if (row !== undefined) {
      const drift = topWithin(el, row) - held.offset;
      if (Math.abs(drift) >= 0.5) el.scrollTop += drift;
      return true;
    }
    // Not rendered (older rows were prepended above it): placed by the measured and estimated heights,
    // then exactly once the render at that position has it.
    const index = items.findIndex((item) => item.key === held.key);
    const spacer = el.firstElementChild;
    if (index < 0 || spacer === null) return true;
    el.scrollTop = topWithin(el, spacer) + el.scrollTop + sums[index]! - held.offset;
    return false;
  };
  /** This render's holdAnchor, for the row observer set up at mount. */
  const latestHold = useRef(holdAnchor);
  latestHold.current = holdAnchor;

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el === null || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => setViewport({ top: el.scrollTop, height: el.clientHeight }));
    observer.observe(el);
    const rows = new ResizeObserver((entries) => {
      const grown = entries.some((entry) => {
        const row = entry.target as HTMLElement;
        return row.isConnected && heights.current.get(row.dataset["rowKey"]!) !== row.offsetHeight;
      });
      if (!grown) return;
      // Before the next paint: a row that grew above the screen must not push the rows on it down.
      latestHold.current(el);
      setMeasureVersion((v) => v + 1);
    });
    rowObserver.current = rows;
    const watched = observed.current;
    return () => {
      observer.disconnect();
      rows.disconnect();
      rowObserver.current = undefined;
      watched.clear();
    };
  }, []);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el === null) return;
    // Measure what is rendered; a changed height re-slices once.
    let changed = false;
    for (const row of el.querySelectorAll<HTMLElement>("[data-row-key]")) {
      const key = row.dataset["rowKey"]!;
      const height = row.offsetHeight;
      if (heights.current.get(key) !== height) {
        heights.current.set(key, height);
        changed = true;
      }
    }
    const observer = rowObserver.current;
    if (observer !== undefined) {
      for (const row of observed.current) {
        if (!row.isConnected) {
          observer.unobserve(row);
          observed.current.delete(row);
        }
      }
      for (const row of el.querySelectorAll<HTMLElement>("[data-row-key]")) {
        if (!observed.current.has(row)) {
          observed.current.add(row);
          observer.observe(row);
        }
      }
    }
    let held = true;
    if (pinned.current) el.scrollTop = el.scrollHeight;
    else held = holdAnchor(el);
    lastTop.current = el.scrollTop;
    if (changed) {
      setMeasureVersion((v) => v + 1);
      return;
    }
    if (held) anchor.current = anchorOf(el);
    if (el.scrollTop !== viewport.top || el.clientHeight !== viewport.height) setViewport({ top: el.scrollTop, height: el.clientHeight });
  });

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (el === null) return;
    // A scroll event arrives after the fact: the log may have grown since the scroll that caused it (the
    // pinning scroll itself), so being above the bottom unpins only when the person moved up.
    if (isPinnedToBottom(el.scrollTop, el.clientHeight, el.scrollHeight)) pinned.current = true;
    else if (el.scrollTop < lastTop.current) pinned.current = false;
    lastTop.current = el.scrollTop;
    anchor.current = anchorOf(el);
    setViewport({ top: el.scrollTop, height: el.clientHeight });
    if (el.scrollTop < NEAR_TOP_PX) onNearTop?.();
  }, [onNearTop]);

  return (
    <div
      ref={scroller}
      class="timeline"
      role="log"
      aria-label={label}
      // Windowing adds and removes rows while scrolling; announcements come from the chat's own live region.
      aria-live="off"
      tabIndex={0}
      onScroll={onScroll}
      data-rows-total={items.length}
    >
      <div style={{ height: `${slice.padTop}px` }} aria-hidden="true" />
      {items.slice(slice.start, slice.end).map((item) => (
        <div key={item.key} data-row-key={item.key} class="timeline-row">
          {render(item)}
        </div>
      ))}
      <div style={{ height: `${slice.padBottom}px` }} aria-hidden="true" />
    </div>
  );
}

/** The top of `element` relative to the top of the log's viewport, in px. */
function topWithin(log: HTMLElement, element: Element): number {
  return element.getBoundingClientRect().top - log.getBoundingClientRect().top;
}

/** The rendered row of `key`, if it is in the window. */
function rowElement(log: HTMLElement, key: string): HTMLElement | undefined {
  for (const row of log.querySelectorAll<HTMLElement>("[data-row-key]")) if (row.dataset["rowKey"] === key) return row;
  return undefined;
}

/**
 * The first row wholly on screen (else the first one partly on screen), and where its top is: a row cut by
 * the viewport's top may still change height (a view growing) without moving the rows fully seen.
 */
function anchorOf(log: HTMLElement): { key: string; offset: number } | undefined {
  const top = log.getBoundingClientRect().top;
  let partly: { key: string; offset: number } | undefined;
  for (const row of log.querySelectorAll<HTMLElement>("[data-row-key]")) {
    const box = row.getBoundingClientRect();
    if (box.bottom <= top) continue;
    const seen = { key: row.dataset["rowKey"]!, offset: box.top - top };
    if (box.top >= top - 0.5) return seen;
    partly ??= seen;
  }
  return partly;
}
