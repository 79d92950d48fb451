import { createLogger, LineUpError } from "@lineup/protocol";
import { describe, expect, it } from "vitest";
import { logRuntimeDiagnostics } from "../src/index.js";

describe("logRuntimeDiagnostics", () => {
  it("writes each report as one line of the one log shape: msg the context, kind, pino's err field without a stack", () => {
    const lines: string[] = [];
    const sink = logRuntimeDiagnostics(createLogger({ write: (line) => lines.push(line), now: () => 7, bindings: { name: "host" } }));
    sink(new LineUpError("request_timeout", "the disk did not answer\n    at commit (store.ts:1:1)"), "result card");
    sink("not an error", "auto-acknowledge");
    expect(lines.every((line) => line.endsWith("\n") && !line.slice(0, -1).includes("\n"))).toBe(true);
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      { level: 40, time: 7, name: "host", msg: "result card", kind: "runtime_error", err: { type: "LineUpError", message: "the disk did not answer", code: "request_timeout" } },
      { level: 40, time: 7, name: "host", msg: "auto-acknowledge", kind: "runtime_error", err: { type: "string", message: "not an error" } },
    ]);
  });
});
