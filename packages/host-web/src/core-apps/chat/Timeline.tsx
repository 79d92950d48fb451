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
  const anchor = useRef<{ key: string; offset: number } | undefined>(undefined);
  // Rows that change height after they rendered (an image or a preview loading, a card opening) are
  // measured again, so the log stays pinned to the bottom and the spacers stay true.
  const rowObserver = useRef<ResizeObserver | undefined>(undefined);
  const observed = useRef(new Set<HTMLElement>());

  const sums = useMemo(() => prefixSums(items.length, (i) => heights.current.get(items[i]!.key) ?? estimate), [items, measureVersion, estimate]);
  const slice = sliceWindow(sums, viewport.top, viewport.height, OVERSCAN_PX);

  const pinnedFor = useRef(pinKey);
  if (pinnedFor.current !== pinKey) {
    pinnedFor.current = pinKey;
    pinned.current = true;
  }

  // Before the items change, remember which row is at the top, so prepending older rows does not jump.
  const firstKey = items[0]?.key;
  const previousFirst = useRef(firstKey);
  if (previousFirst.current !== firstKey && scroller.current !== null && anchor.current === undefined) {
    const old = scroller.current;
    const rows = old.querySelectorAll<HTMLElement>("[data-row-key]");
    for (const row of rows) {
      if (row.offsetTop + row.offsetHeight > old.scrollTop) {
        anchor.current = { key: row.dataset["rowKey"]!, offset: row.offsetTop - old.scrollTop };
        break;
      }
    }
  }
  previousFirst.current = firstKey;

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
      if (grown) setMeasureVersion((v) => v + 1);
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
    if (changed) {
      setMeasureVersion((v) => v + 1);
      return;
    }
    if (anchor.current !== undefined) {
      const { key, offset } = anchor.current;
      anchor.current = undefined;
      const index = items.findIndex((item) => item.key === key);
      if (index >= 0) el.scrollTop = sums[index]! - offset;
    } else if (pinned.current) {
      el.scrollTop = el.scrollHeight;
    }
    lastTop.current = el.scrollTop;
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
