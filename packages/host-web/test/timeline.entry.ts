// A page with the chat's windowed Timeline alone, under the host's CSP. Its rows are plain boxes; some are
// "views" that mount small and reach their full height a moment later, as an MCP view or an image does each
// time the window mounts it again. The test drives it through window.__timeline.
import { h, render } from "preact";
import { Timeline } from "../src/core-apps/chat/Timeline.js";
import "../src/styles.css";

interface Row {
  readonly key: string;
  readonly height: number;
  /** Mounts at this height and grows to `height` after `growMs`. */
  readonly mountHeight?: number;
}

const GROW_MS = 60;

function Box({ row }: { row: Row }) {
  const el = h("div", {
    class: "test-box",
    "data-key": row.key,
    style: { height: `${row.mountHeight ?? row.height}px`, border: "1px solid #ccc", boxSizing: "border-box" },
    ref: (node: HTMLDivElement | null) => {
      if (node === null || row.mountHeight === undefined || node.dataset["grown"] === "1") return;
      node.dataset["grown"] = "1";
      setTimeout(() => (node.style.height = `${row.height}px`), GROW_MS);
    },
  }, row.key);
  return el;
}

let rows: Row[] = [];
const root = document.createElement("div");
root.style.cssText = "display:flex;flex-direction:column;height:600px;width:600px";
document.body.append(root);
const draw = (): void => render(h(Timeline<Row>, { items: rows, label: "Messages", estimate: 72, render: (row: Row) => h(Box, { row }) }), root);

const api = {
  /** `count` rows; every `viewEvery`-th is a view that mounts at 40 px and grows to 320 px. */
  fill(count: number, viewEvery: number): void {
    rows = Array.from({ length: count }, (_, i) => (i % viewEvery === viewEvery - 1 ? { key: `r${i}`, height: 320, mountHeight: 40 } : { key: `r${i}`, height: 50 + ((i * 37) % 90) }));
    draw();
  },
  /** `count` older rows before the first. */
  prepend(count: number): void {
    const first = Number(rows[0]!.key.slice(1));
    rows = [...Array.from({ length: count }, (_, i) => ({ key: `r${first - count + i}`, height: 50 + (((first - count + i) * 37) % 90 + 90) % 90 })), ...rows];
    draw();
  },
  /** The first row wholly inside the log's viewport, and its top relative to the viewport's top. */
  visible(): { key: string; top: number } | undefined {
    const log = document.querySelector<HTMLElement>('[role="log"]')!;
    const box = log.getBoundingClientRect();
    for (const row of log.querySelectorAll<HTMLElement>("[data-row-key]")) {
      const r = row.getBoundingClientRect();
      if (r.top >= box.top) return { key: row.dataset["rowKey"]!, top: Math.round(r.top - box.top) };
    }
    return undefined;
  },
  /** Where the row `key` is now relative to the viewport's top (undefined when not rendered). */
  topOf(key: string): number | undefined {
    const log = document.querySelector<HTMLElement>('[role="log"]')!;
    const row = log.querySelector<HTMLElement>(`[data-row-key="${key}"]`);
    return row === null ? undefined : Math.round(row.getBoundingClientRect().top - log.getBoundingClientRect().top);
  },
};

(window as unknown as { __timeline: typeof api }).__timeline = api;
