import { describe, expect, it } from "vitest";
import type { AppManifest } from "@lineup/protocol";
import type { AppInstance } from "@lineup/runtime";
import { displayModesOf, pipCandidateOf } from "../src/shell/placement.js";

const manifest = (entrypoints: unknown[]): AppManifest => ({ entrypoints }) as unknown as AppManifest;
const instance = (instance_id: string, app_scope: string, entrypoint?: string): AppInstance =>
  ({ instance_id, app_scope, status: "backgrounded", ...(entrypoint === undefined ? {} : { entrypoint }) }) as unknown as AppInstance;

describe("picture-in-picture placement", () => {
  it("reads the display modes of the instance's entrypoint, defaulting to foreground only", () => {
    const m = manifest([
      { id: "game", kind: "contextual" },
      { id: "board", kind: "primary", display_modes: ["foreground", "pip"] },
      { id: "sync", kind: "background" },
    ]);
    expect(displayModesOf(m, { entrypoint: "game" })).toEqual(["foreground"]);
    expect(displayModesOf(m, { entrypoint: "board" })).toEqual(["foreground", "pip"]);
    expect(displayModesOf(m, {})).toEqual(["foreground", "pip"]);
    expect(displayModesOf(m, { entrypoint: "sync" })).toEqual([]);
    expect(displayModesOf(undefined, { entrypoint: "game" })).toEqual([]);
  });

  it("floats the most recent app behind the screen only when it declares pip; an older one never floats in its place", () => {
    const apps: Record<string, AppInstance> = { a: instance("a", "whiteboard"), b: instance("b", "draw-and-guess"), c: instance("c", "pomodoro") };
    const pip = new Set(["whiteboard", "pomodoro"]);
    const onScreen = (id: string) => apps[id];
    const canPip = (i: AppInstance) => pip.has(i.app_scope);
    expect(pipCandidateOf(["a", "c"], undefined, onScreen, canPip)).toBe("c");
    // The game was on top: it cannot be squeezed into the small window, and the board behind it stays behind.
    expect(pipCandidateOf(["a", "b"], undefined, onScreen, canPip)).toBeUndefined();
    // The one on screen is skipped; gone instances are skipped.
    expect(pipCandidateOf(["a", "c"], "c", onScreen, canPip)).toBe("a");
    expect(pipCandidateOf(["a", "gone"], undefined, onScreen, canPip)).toBe("a");
    expect(pipCandidateOf([], undefined, onScreen, canPip)).toBeUndefined();
  });
});
