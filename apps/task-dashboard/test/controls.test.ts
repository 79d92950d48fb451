/** Which buttons a task's card enables, by its status and decision, and what its badge says. */
import { describe, expect, it } from "vitest";
import { AGENT_TASK_STATUSES } from "@lineup/protocol";
import { allowedControls, canExportEvidence, statusText } from "../src/model/controls.js";

const allowed = (status: (typeof AGENT_TASK_STATUSES)[number], decision?: "accepted" | "rejected") => [...allowedControls({ status, ...(decision === undefined ? {} : { decision: { decision } }) })].sort();

describe("task controls by status", () => {
  it("a task that waits or works can be cancelled, or edited and resubmitted in its place", () => {
    expect(allowed("queued")).toEqual(["cancel", "resubmit"]);
    expect(allowed("running")).toEqual(["cancel", "resubmit"]);
    expect(allowed("waiting_for_user")).toEqual(["cancel", "resubmit"]);
  });

  it("a completed, undecided result can be accepted, rejected, or edited and resubmitted — not cancelled, nor retried as it was", () => {
    expect(allowed("completed")).toEqual(["accept", "reject", "resubmit"]);
  });

  it("a failed or stopped task can be run again, as it was or edited; there is nothing to accept", () => {
    expect(allowed("failed")).toEqual(["resubmit", "retry"]);
    expect(allowed("cancelled")).toEqual(["resubmit", "retry"]);
  });

  it("a rejected result may be tried again; an accepted one is done", () => {
    expect(allowed("completed", "rejected")).toEqual(["resubmit", "retry"]);
    expect(allowed("completed", "accepted")).toEqual([]);
  });

  it("evidence is exported once the attempt has ended", () => {
    expect(AGENT_TASK_STATUSES.filter((status) => canExportEvidence({ status }))).toEqual(["completed", "failed", "cancelled"]);
  });

  it("the badge names the status, and the decision of a completed task", () => {
    expect(statusText({ status: "cancelled" })).toBe("Stopped");
    expect(statusText({ status: "completed" })).toBe("Done");
    expect(statusText({ status: "completed", decision: { decision: "accepted" } })).toBe("Done · accepted");
    expect(statusText({ status: "waiting_for_user" })).toBe("Needs you");
  });
});
