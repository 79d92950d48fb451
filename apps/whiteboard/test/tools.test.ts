import type { JsonObject } from "@lineup/protocol";
import type { ToolContext } from "@lineup/surface-sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalSessionData } from "@lineup/surface-sdk";
import { provideService } from "../src/service.js";
import { BoardStore } from "../src/store.js";
import { BoardSync } from "../src/sync.js";
import { tools } from "../src/tools.js";
import { checkToolArguments } from "../../../test/support/tool-arguments.js";

let data: LocalSessionData;
let store: BoardStore;
let exported: unknown[];

function ctx(progress: unknown[] = []): ToolContext {
  return { call_id: "call-1", method: "x.y", signal: new AbortController().signal, progress: async (p) => void progress.push(p) };
}

async function call(method: string, args: JsonObject, context = ctx()) {
  // As a call arrives: checked by the Runtime against the tool's input_schema, then handed to the handler.
  const checked = checkToolArguments(tools, method, args);
  if (!checked.ok) return { refused: checked.error.code, path: checked.error.path };
  return tools.tools.get(method)!.handler(checked.value as JsonObject, context);
}

beforeEach(async () => {
  data = new LocalSessionData();
  const sync = new BoardSync({ sessionData: data });
  await sync.start();
  let n = 0;
  store = new BoardStore(sync, () => `item-${++n}`);
  exported = [];
  provideService({
    store,
    exportPng: async (options) => {
      exported.push(options.scale);
      await options.onProgress?.("render", 0.6);
      return { artifact: { artifact_id: "art-1", name: "b.png", mime_type: "image/png", size: 10, sha256: "0".repeat(64) } as never, width: 40, height: 30 };
    },
  });
});
afterEach(() => provideService(undefined));

describe("whiteboard tools", () => {
  it("declares the four tools with the call models of the issue", () => {
    const models = Object.fromEntries([...tools.tools.values()].map((t) => [t.descriptor.method, t.descriptor.call_model]));
    expect(models).toEqual({ "board.create": "command", "board.add_shapes": "command", "board.summary": "query", "board.export": "operation" });
    expect(tools.tools.get("board.create")!.descriptor.activation_requirement).toBe("foreground_required");
  });

  it("board.create starts a new titled board and stores it before answering", async () => {
    await call("board.add_shapes", { shapes: [{ type: "rect", x: 0, y: 0, width: 10, height: 10 }] });
    expect(await call("board.create", { title: "Retro" })).toEqual({ title: "Retro", item_count: 0 });
    expect(data.current.data).toMatchObject({ title: "Retro", items: [] });
    // The user can get the old board back.
    store.undo();
    expect(store.board.items).toHaveLength(1);
  });

  it("board.add_shapes draws what the agent asks, stored before it answers", async () => {
    const result = await call("board.add_shapes", {
      shapes: [
        { type: "rect", x: 10, y: 10, width: 120, height: 60, label: "Idea", fill: "yellow" },
        { type: "arrow", x1: 130, y1: 40, x2: 220, y2: 40, color: "blue" },
        { type: "text", x: 230, y: 30, text: "Ship it" },
      ],
    });
    expect(result).toEqual({ added: 3, ids: ["item-1", "item-2", "item-3"], item_count: 3 });
    expect((data.current.data as { items: unknown[] }).items).toHaveLength(3);
  });

  it("refuses bad shapes by schema: unknown type, missing coordinates, bad colour, extra keys", async () => {
    expect(await call("board.add_shapes", { shapes: [{ type: "star", x: 1, y: 1 }] })).toMatchObject({ refused: "invalid_arguments" });
    expect(await call("board.add_shapes", { shapes: [{ type: "rect", x: 1 }] })).toMatchObject({ refused: "invalid_arguments" });
    expect(await call("board.add_shapes", { shapes: [{ type: "line", x1: 0, y1: 0, x2: 1, y2: 1, color: "javascript:alert(1)" }] })).toMatchObject({ refused: "invalid_arguments" });
    expect(await call("board.add_shapes", { shapes: [] })).toMatchObject({ refused: "invalid_arguments" });
    expect(await call("board.create", { title: "x", extra: 1 })).toMatchObject({ refused: "invalid_arguments" });
  });

  it("board.summary reads the board back", async () => {
    await call("board.create", { title: "Map" });
    await call("board.add_shapes", { shapes: [{ type: "ellipse", x: 0, y: 0, width: 40, height: 20, label: "Home" }, { type: "text", x: 0, y: 50, text: "Route" }] });
    expect(await call("board.summary", {})).toEqual({
      title: "Map",
      item_count: 2,
      counts: { stroke: 0, rect: 0, ellipse: 1, line: 0, arrow: 0, text: 1 },
      bounding_box: { x: 0, y: 0, width: 60, height: 75 },
      texts: ["Home", "Route"],
    });
  });

  it("board.export reports progress and returns the artifact", async () => {
    const progress: unknown[] = [];
    const result = await call("board.export", { scale: 1 }, ctx(progress));
    expect(result).toMatchObject({ artifact: { artifact_id: "art-1" }, width: 40, height: 30 });
    expect(exported).toEqual([1]);
    expect(progress).toEqual([{ stage: "started", progress: 0, message: "Rendering the board" }, { stage: "render", progress: 0.6 }]);
  });

  it("before the board has loaded a call fails with handler_failed", async () => {
    provideService(undefined);
    await expect(call("board.summary", {})).rejects.toMatchObject({ code: "handler_failed" });
  });
});
