import { afterEach, describe, expect, it } from "vitest";
import { observeContentHeight } from "../src/auto-resize.js";

type Callback = () => void;
const g = globalThis as Record<string, unknown>;

afterEach(() => {
  delete g["ResizeObserver"];
  delete g["requestAnimationFrame"];
});

describe("autoResize", () => {
  it("reports the rounded content height once per frame and only when it changed; stops on unsubscribe", async () => {
    let fire: Callback = () => {};
    let disconnected = false;
    g["ResizeObserver"] = class {
      constructor(cb: Callback) {
        fire = cb;
      }
      observe() {}
      disconnect() {
        disconnected = true;
      }
    };
    const frames: Callback[] = [];
    g["requestAnimationFrame"] = (cb: Callback) => frames.push(cb);
    let height = 100.2;
    const element = { getBoundingClientRect: () => ({ height }) } as unknown as Element;
    const sent: number[] = [];
    const stop = observeContentHeight(async (h) => void sent.push(h), element);
    fire();
    fire();
    expect(frames).toHaveLength(1);
    frames.shift()!();
    expect(sent).toEqual([101]);
    fire();
    frames.shift()!();
    expect(sent).toEqual([101]);
    height = 240;
    fire();
    frames.shift()!();
    expect(sent).toEqual([101, 240]);
    stop();
    expect(disconnected).toBe(true);
  });

  it("does nothing where there is no ResizeObserver", () => {
    expect(observeContentHeight(async () => {})).toBeTypeOf("function");
  });
});
