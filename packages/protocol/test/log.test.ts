import { describe, expect, it } from "vitest";
import { LineUpError, createLogger, errorField, isRecord } from "../src/index.js";

describe("createLogger", () => {
  it("writes pino's line format: numeric level, time, bindings, msg, then fields; below the level nothing", () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "info", write: (line) => lines.push(line), bindings: { pid: 7 }, now: () => 1_000 });
    logger.debug("hidden");
    logger.child({ connection: 3 }).warn("slow", { ms: 12 });
    logger.error("failed", { err: errorField(new LineUpError("overloaded", "queue full\nat line 2")) });
    expect(lines.every((line) => line.endsWith("\n"))).toBe(true);
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toEqual([
      { level: 40, time: 1_000, pid: 7, connection: 3, msg: "slow", ms: 12 },
      { level: 50, time: 1_000, pid: 7, msg: "failed", err: { type: "LineUpError", message: "queue full", code: "overloaded" } },
    ]);
    expect(Object.keys(records[0]!).slice(0, 2)).toEqual(["level", "time"]);
    expect(logger.enabled("debug")).toBe(false);
    expect(logger.enabled("warn")).toBe(true);
  });

  it("errorField never carries a stack, whatever is thrown", () => {
    expect(errorField("text")).toEqual({ type: "string", message: "text" });
    expect(errorField({ message: "plain", code: "x" })).toEqual({ type: "Object", message: "plain", code: "x" });
    expect(JSON.stringify(errorField(new Error("a\n    at f (file.js:1:1)")))).not.toContain("file.js");
  });
});

describe("isRecord", () => {
  it("is true for objects only, not null or arrays", () => {
    expect([{}, Object.create(null), { a: 1 }].every(isRecord)).toBe(true);
    expect([null, [], "x", 1, undefined].some(isRecord)).toBe(false);
  });
});
