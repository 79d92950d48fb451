import type { JsonObject, RuntimeEnvelope } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { boardTool, diagramBounds, diagramRequest, diagramShapes, drawingTop, parseIntent, runDemoAgent, splitSteps, wrapLabel, type AgentClient, type DemoAgent } from "../src/index.js";
import { FakeAppServer, tool } from "./fake-app-server.js";
import { connectToFake, waitFor } from "./helpers.js";

const running: { client: AgentClient; agent: DemoAgent }[] = [];
afterEach(async () => {
  for (const { client, agent } of running.splice(0)) {
    agent.dispose();
    await client.close();
  }
});

// The whiteboard's tools as the app declares them (titles and the shapes schema's outline).
const CREATE = tool("whiteboard", "board.create", { title: "Create a whiteboard", input_schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] } });
const ADD_SHAPES = tool("whiteboard", "board.add_shapes", { title: "Draw shapes on the whiteboard", input_schema: { type: "object", required: ["shapes"], properties: { shapes: { type: "array", minItems: 1 } } } });
const SUMMARY = tool("whiteboard", "board.summary", { title: "Read the whiteboard", call_model: "query" });
const EXPORT = tool("whiteboard", "board.export", { title: "Export the whiteboard as PNG", call_model: "operation" });
const ALL = [CREATE, ADD_SHAPES, SUMMARY, EXPORT];

const EMPTY_COUNTS = { stroke: 0, rect: 0, ellipse: 0, line: 0, arrow: 0, text: 0 };

async function start(server: FakeAppServer): Promise<AgentClient> {
  const client = await connectToFake(server);
  running.push({ client, agent: runDemoAgent(client) });
  await waitFor(() => [...server.sessions.keys()].every((id) => client.cursor(id) === server.sessions.get(id)!.session.last_seq), "agent caught up");
  return client;
}

/** Plays the device: every call gets a receipt, then the result `results[method]` gives for its arguments. */
function device(server: FakeAppServer, results: Record<string, (args: JsonObject) => JsonObject>): RuntimeEnvelope[] {
  const invokes: RuntimeEnvelope[] = [];
  server.onAgentEnvelope = (sessionId, envelope) => {
    if (envelope.type !== "lineup.tool.invoke") return;
    invokes.push(envelope);
    const { method, arguments: args } = envelope.payload as { method: string; arguments: JsonObject };
    const correlation = { call_id: envelope.correlation!.call_id!, reply_to: envelope.id };
    server.deviceEnvelope(sessionId, "lineup.tool.receipt", { status: "accepted" }, correlation, envelope.scope.app_scope);
    server.deviceEnvelope(sessionId, "lineup.tool.result", { result: results[method]!(args) }, correlation, envelope.scope.app_scope);
  };
  return invokes;
}

function lastReply(server: FakeAppServer): string {
  return (server.agentEnvelopes("s-1", "lineup.message").at(-1)?.payload as { text: string } | undefined)?.text ?? "";
}

async function turnEnds(server: FakeAppServer, turnId: string): Promise<string> {
  await waitFor(() => ["completed", "failed"].includes(server.turn("s-1", turnId)?.state ?? ""), `turn ${turnId} to end`);
  return server.turn("s-1", turnId)!.state;
}

type Shape = { type: string; x?: number; y?: number; width?: number; height?: number; label?: string; text?: string; x1?: number; y1?: number; x2?: number; y2?: number };

describe("the demo agent works on the whiteboard", () => {
  it("draws the steps the person names below what is already on the board, then says what it drew", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, ALL);
    const invokes = device(server, {
      "board.summary": () => ({ title: "Plan", item_count: 2, counts: { ...EMPTY_COUNTS, stroke: 2 }, bounding_box: { x: 10, y: 20, width: 300, height: 180 }, texts: [] }),
      "board.add_shapes": (args) => ({ added: (args["shapes"] as unknown[]).length, ids: [], item_count: 10 }),
    });
    await start(server);
    server.startTurn("s-1", "Draw a diagram of the login flow: Sign in -> Check password -> Home", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    // It looks at the board first, then draws: nothing else is called (no new board).
    expect(invokes.map((i) => (i.payload as { method: string }).method)).toEqual(["board.summary", "board.add_shapes"]);
    const shapes = (invokes[1]!.payload as { arguments: { shapes: Shape[] } }).arguments.shapes;
    expect(shapes.filter((s) => s.type === "rect").map((s) => s.label)).toEqual(["Sign in", "Check password", "Home"]);
    expect(shapes.filter((s) => s.type === "arrow")).toHaveLength(2);
    expect(shapes.find((s) => s.type === "text")?.text).toBe("Login flow");
    // Below the existing drawing (its box ends at y = 200).
    expect(Math.min(...shapes.map((s) => s.y ?? s.y1!))).toBeGreaterThan(200);
    expect(lastReply(server)).toBe("I drew the **login flow** on the whiteboard: Sign in → Check password → Home. Draw on it too, or ask me *what's on the whiteboard?*");
    // Each call is a task in the chat under the tool's own title.
    const titles = server.agentEnvelopes("s-1", "lineup.task.progress").map((e) => (e.payload as { title: string }).title);
    expect(new Set(titles)).toEqual(new Set(["Read the whiteboard", "Draw shapes on the whiteboard"]));
    // Then it asks the whiteboard to bring the drawing into view (a state patch covering every shape it drew).
    const patches = server.agentEnvelopes("s-1", "lineup.app.state.patch");
    expect(patches.map((p) => p.target)).toEqual([{ kind: "app", app_scope: "whiteboard" }]);
    const focus = (patches[0]!.payload as { patch: { focus: { x: number; y: number; width: number; height: number } } }).patch.focus;
    for (const shape of shapes.filter((s) => s.type === "rect")) {
      expect(shape.x! >= focus.x && shape.y! >= focus.y && shape.x! + shape.width! <= focus.x + focus.width && shape.y! + shape.height! <= focus.y + focus.height).toBe(true);
    }
    expect(focus.y).toBeGreaterThan(200 - 24);
  });

  it("asks for the steps when the request names none, and draws the answer; a cancelled card draws nothing", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, ALL);
    const invokes = device(server, {
      "board.summary": () => ({ title: "Board", item_count: 0, counts: EMPTY_COUNTS, bounding_box: null, texts: [] }),
      "board.add_shapes": () => ({ added: 3, ids: [], item_count: 3 }),
    });
    await start(server);
    server.startTurn("s-1", "draw a diagram of the onboarding", "t-1");
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.interaction.request").length === 1, "the card");
    const card = server.agentEnvelopes("s-1", "lineup.interaction.request")[0]!.payload as { interaction_id: string; kind: string; prompt: string };
    expect(card).toMatchObject({ kind: "input", prompt: "What are the steps of the onboarding? Separate them with arrows or commas." });
    expect(invokes).toHaveLength(0);
    server.deviceEnvelope("s-1", "lineup.interaction.response", { interaction_id: card.interaction_id, outcome: "answered", text: "Welcome, Profile and Done" });
    expect(await turnEnds(server, "t-1")).toBe("completed");
    const shapes = (invokes.at(-1)!.payload as { arguments: { shapes: Shape[] } }).arguments.shapes;
    expect(shapes.filter((s) => s.type === "rect").map((s) => s.label)).toEqual(["Welcome", "Profile", "Done"]);
    expect(lastReply(server)).toContain("Welcome → Profile → Done");

    server.startTurn("s-1", "draw a flow chart", "t-2");
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.interaction.request").length === 2, "the second card");
    const second = server.agentEnvelopes("s-1", "lineup.interaction.request")[1]!.payload as { interaction_id: string; prompt: string };
    expect(second.prompt).toBe("What are the steps? Separate them with arrows or commas.");
    const calls = invokes.length;
    server.deviceEnvelope("s-1", "lineup.interaction.response", { interaction_id: second.interaction_id, outcome: "cancelled" });
    expect(await turnEnds(server, "t-2")).toBe("completed");
    expect(lastReply(server)).toBe("OK, I didn't draw anything.");
    expect(invokes).toHaveLength(calls);
  });

  it("reads the board back in words: what kinds of items, and the text on it", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, ALL);
    let empty = false;
    const invokes = device(server, {
      "board.summary": () =>
        empty
          ? { title: "Ideas", item_count: 0, counts: EMPTY_COUNTS, bounding_box: null, texts: [] }
          : { title: "Ideas", item_count: 6, counts: { ...EMPTY_COUNTS, rect: 3, arrow: 2, text: 1 }, bounding_box: { x: 0, y: 0, width: 10, height: 10 }, texts: ["Plan", "Build *fast*", "Ship"] },
    });
    await start(server);
    server.startTurn("s-1", "What's on the whiteboard?", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(invokes.map((i) => i.payload)).toMatchObject([{ method: "board.summary", arguments: {} }]);
    expect(lastReply(server)).toBe("The whiteboard **Ideas** has 6 items: 3 rectangles, 2 arrows and 1 text item.\n\nText on it, top to bottom:\n\n- Plan\n- Build \\*fast\\*\n- Ship");
    empty = true;
    server.startTurn("s-1", "describe the board", "t-2");
    expect(await turnEnds(server, "t-2")).toBe("completed");
    expect(lastReply(server)).toContain("The whiteboard **Ideas** is empty.");
  });

  it("exports the board and says how big the PNG is and where it is", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, ALL);
    const invokes = device(server, {
      "board.export": () => ({ artifact: { artifact_id: "art-1", name: "whiteboard.png", mime_type: "image/png", size: 20_480, sha256: "ab" }, width: 1200, height: 800 }),
    });
    await start(server);
    server.startTurn("s-1", "export the whiteboard as a PNG", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(invokes.map((i) => (i.payload as { method: string }).method)).toEqual(["board.export"]);
    expect(lastReply(server)).toBe("Exported the whiteboard as a **1200 × 800** PNG (20.0 KB), saved in this conversation as `whiteboard.png`.");
  });

  it("without the whiteboard it says how to install it, and a whiteboard without the tool says so: nothing is called", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, []);
    const invokes = device(server, {});
    await start(server);
    server.startTurn("s-1", "draw Plan -> Build -> Ship", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(lastReply(server)).toContain("I can't draw on the **whiteboard** here");
    server.publishInventory("s-1", 2, [CREATE]);
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.message").length === 1, "first reply");
    server.startTurn("s-1", "export the whiteboard", "t-2");
    expect(await turnEnds(server, "t-2")).toBe("completed");
    expect(lastReply(server)).toBe("The **Whiteboard** app here offers no tool to export it, so I can't do that.");
    expect(invokes).toHaveLength(0);
  });
});

describe("whiteboard building blocks", () => {
  it("understands drawing, reading and exporting, without taking over the other requests", () => {
    expect(parseIntent("draw a diagram of the login flow")).toEqual({ kind: "board", action: "draw" });
    expect(parseIntent("please draw Plan -> Build -> Ship")).toEqual({ kind: "board", action: "draw" });
    expect(parseIntent("画一个流程图：登录→验证→首页")).toEqual({ kind: "board", action: "draw" });
    expect(parseIntent("what is on the whiteboard")).toEqual({ kind: "board", action: "read" });
    expect(parseIntent("Read the whiteboard")).toEqual({ kind: "board", action: "read" });
    expect(parseIntent("白板上有什么")).toEqual({ kind: "board", action: "read" });
    expect(parseIntent("Export the whiteboard")).toEqual({ kind: "board", action: "export" });
    expect(parseIntent("save the board as an image")).toEqual({ kind: "board", action: "export" });
    expect(parseIntent("open the whiteboard")).toEqual({ kind: "open_app", target: "whiteboard" });
    expect(parseIntent("let's play draw and guess")).toEqual({ kind: "open_app", target: "draw-and-guess" });
    expect(parseIntent("draw a cat")).toEqual({ kind: "echo" });
  });

  it("takes the steps and the topic from the person's words", () => {
    expect(diagramRequest("draw a diagram of the login flow")).toEqual({ topic: "login flow", steps: [] });
    expect(diagramRequest("draw a diagram of the login flow: Sign in -> Check password -> Home")).toEqual({ topic: "login flow", steps: ["Sign in", "Check password", "Home"] });
    expect(diagramRequest("draw Sign in → Verify → Home")).toEqual({ steps: ["Sign in", "Verify", "Home"] });
    expect(diagramRequest("draw the release flow: Plan -> Build -> Ship")).toEqual({ topic: "release flow", steps: ["Plan", "Build", "Ship"] });
    expect(diagramRequest("sketch the steps: wake up, coffee, code")).toEqual({ steps: ["wake up", "coffee", "code"] });
    expect(diagramRequest("please draw a flowchart for onboarding.")).toEqual({ topic: "onboarding", steps: [] });
    expect(diagramRequest("draw a flow chart")).toEqual({ steps: [] });
    expect(diagramRequest("draw a flow with plan, build and ship")).toEqual({ steps: ["plan", "build", "ship"] });
    expect(diagramRequest("draw plan then build then ship")).toEqual({ steps: ["plan", "build", "ship"] });
    expect(diagramRequest("画流程图：登录→验证→首页")).toEqual({ steps: ["登录", "验证", "首页"] });
    // A phrase with "and" alone is one thing, not two steps.
    expect(diagramRequest("draw a diagram of sales and marketing")).toEqual({ topic: "sales and marketing", steps: [] });
    expect(splitSteps("A, B, C, D, E, F, G, H, I, J")).toHaveLength(8);
    expect(splitSteps(`${"x".repeat(80)} -> y`)[0]).toHaveLength(60);
  });

  it("lays the steps out in rows, each arrow from one box to the next, below the given top", () => {
    const shapes = diagramShapes(["a", "b", "c", "d"], undefined, 300) as Shape[];
    const boxes = shapes.filter((s) => s.type === "rect");
    const arrows = shapes.filter((s) => s.type === "arrow");
    expect(boxes.map((b) => [b.x, b.y])).toEqual([
      [40, 300],
      [256, 300],
      [472, 300],
      [40, 436],
    ]);
    expect(arrows).toHaveLength(3);
    for (const [i, a] of arrows.entries()) {
      const from = boxes[i]!;
      const to = boxes[i + 1]!;
      // Starts on the edge of one box and ends on the edge of the next.
      expect(a.x1! >= from.x! && a.x1! <= from.x! + from.width! && a.y1! >= from.y! && a.y1! <= from.y! + from.height!).toBe(true);
      expect(a.x2! >= to.x! && a.x2! <= to.x! + to.width! && a.y2! >= to.y! && a.y2! <= to.y! + to.height!).toBe(true);
    }
    // Long labels wrap to two lines; wide boxes go two to a row, all of one width.
    expect(wrapLabel("Two-factor code")).toEqual(["Two-factor", "code"]);
    expect(wrapLabel("Check password")).toEqual(["Check password"]);
    const long = wrapLabel("Send the verification code to the phone number on file");
    expect(long).toHaveLength(2);
    expect(long[1]!.endsWith("…") && long.every((l) => l.length <= 24)).toBe(true);
    const wide = (diagramShapes(["Send the verification code to the phone", "b", "c"], undefined, 0) as Shape[]).filter((s) => s.type === "rect");
    expect(new Set(wide.map((b) => b.width)).size).toBe(1);
    expect(wide[0]!.width! > 200 && wide[2]!.y! > wide[0]!.y!).toBe(true);
    expect(drawingTop({ bounding_box: { x: 0, y: 100, width: 5, height: 50 } })).toBe(210);
    // The region a drawing covers, with its margin: boxes, the arrows' ends and the title's estimated extent.
    expect(diagramBounds([{ type: "rect", x: 40, y: 300, width: 160, height: 64 }, { type: "arrow", x1: 200, y1: 332, x2: 600, y2: 500 }], 10)).toEqual({ x: 30, y: 290, width: 580, height: 220 });
    expect(diagramBounds([{ type: "text", x: 40, y: 60, text: "Login flow", font_size: 24 }], 0)).toEqual({ x: 40, y: 60, width: 144, height: 34 });
    expect(diagramBounds([])).toBeUndefined();
    expect(drawingTop({ bounding_box: null })).toBe(60);
  });

  it("picks the whiteboard's tool by its verb, never another of its tools", () => {
    expect(boardTool(ALL, "draw")?.method).toBe("board.add_shapes");
    expect(boardTool(ALL, "read")?.method).toBe("board.summary");
    expect(boardTool(ALL, "export")?.method).toBe("board.export");
    expect(boardTool([CREATE], "export")).toBeUndefined();
    expect(boardTool([tool("pomodoro", "timer.export")], "export")).toBeUndefined();
  });
});
