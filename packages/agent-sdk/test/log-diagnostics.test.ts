import { createLogger, LineUpError } from "@lineup/protocol";
import { describe, expect, it } from "vitest";
import { logDiagnostics } from "../src/index.js";

describe("logDiagnostics", () => {
  const run = (level: "info" | "debug") => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = logDiagnostics(createLogger({ level, write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>), now: () => 5 }));
    sink({ kind: "reconnect", message: "reconnecting in 250 ms", error: new LineUpError("request_cancelled", "closed") });
    sink({ kind: "frame_invalid", message: "json_malformed: bad" });
    return lines;
  };

  it("writes notable kinds at warn with pino's err field, and the rest only when debug is on", () => {
    expect(run("info")).toEqual([{ level: 40, time: 5, msg: "reconnecting in 250 ms", kind: "reconnect", err: { type: "LineUpError", message: "closed", code: "request_cancelled" } }]);
    expect(run("debug").map((line) => [line["level"], line["kind"]])).toEqual([
      [40, "reconnect"],
      [20, "frame_invalid"],
    ]);
  });
});
