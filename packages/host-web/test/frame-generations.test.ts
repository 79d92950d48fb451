/**
 * The frame an instance holds across app versions: a new active version replaces its page, except while a
 * tool call or an activation is on the instance — then the page stays until the instance is idle.
 */
import { describe, expect, it } from "vitest";
import { createFrameGenerations } from "../src/apps-host/frame-generations.js";

describe("frame generations", () => {
  it("keeps the page while the version stands, and replaces it once when another version becomes active", () => {
    const frames = createFrameGenerations();
    expect(frames.frameOf("i1", "1.0.0", false)).toEqual({ generation: 0, version: "1.0.0" });
    expect(frames.frameOf("i1", "1.0.0", false)).toEqual({ generation: 0, version: "1.0.0" });
    expect(frames.frameOf("i1", "1.1.0", false)).toEqual({ generation: 1, version: "1.1.0" });
    expect(frames.frameOf("i1", "1.1.0", false)).toEqual({ generation: 1, version: "1.1.0" });
    // A rollback is another version too.
    expect(frames.frameOf("i1", "1.0.0", false)).toEqual({ generation: 2, version: "1.0.0" });
  });

  it("does not replace a busy instance's page; replaces it when the instance is idle again", () => {
    const frames = createFrameGenerations();
    frames.frameOf("i1", "1.0.0", false);
    expect(frames.frameOf("i1", "1.1.0", true)).toEqual({ generation: 0, version: "1.0.0" });
    expect(frames.frameOf("i1", "1.2.0", true)).toEqual({ generation: 0, version: "1.0.0" });
    expect(frames.frameOf("i1", "1.2.0", false)).toEqual({ generation: 1, version: "1.2.0" });
  });

  it("takes a version learnt after the frame mounted as the page it already loaded", () => {
    const frames = createFrameGenerations();
    expect(frames.frameOf("i1", "", false)).toEqual({ generation: 0, version: "" });
    expect(frames.frameOf("i1", "1.0.0", false)).toEqual({ generation: 0, version: "1.0.0" });
  });

  it("forgets instances no longer listed, so one listed again starts a new frame", () => {
    const frames = createFrameGenerations();
    frames.frameOf("i1", "1.0.0", false);
    frames.frameOf("i1", "1.1.0", false);
    frames.frameOf("i2", "2.0.0", false);
    frames.keepOnly(new Set(["i2"]));
    expect(frames.frameOf("i1", "1.1.0", false)).toEqual({ generation: 0, version: "1.1.0" });
    expect(frames.frameOf("i2", "2.0.0", false)).toEqual({ generation: 0, version: "2.0.0" });
  });
});
