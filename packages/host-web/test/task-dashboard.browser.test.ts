/**
 * The task dashboard `npm start` offers, end to end in real Chromium against the real AppServer and the demo
 * agent: installed from Apps, opened in a conversation by the agent's `tasks.open` (called here through a
 * second connection of the dev agent, as any agent would), then the person's own tasks:
 * - write_note: the note streams in word by word → Cancel → the task shows Stopped, and so does its card in
 *   the chat;
 * - plan_week: the week comes back as a result → Accept → Export evidence → the pack's digest is shown, and
 *   the pack (read back from the AppServer) verifies offline and names the task with the app's provenance;
 * - a reload of the page shows the same tasks again.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { FrameLocator, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectAgent, type AgentClient } from "@lineup/agent-sdk";
import { nodeWebSocketTransport } from "@lineup/agent-sdk/node";
import { verifyEvidencePack, type SessionEvent } from "@lineup/protocol";
import { explained, installBuiltinApp, openProduct, say, SCREENSHOTS, type ProductPage } from "./support.js";

let product: ProductPage;
let page: Page;
let agent: AgentClient;
let sessionId: string;
const events: SessionEvent[] = [];

beforeAll(async () => {
  product = await openProduct();
  page = product.page;
  agent = await connectAgent({ url: product.world.server.url, token: product.world.server.devCredentials!.agent_token, transport: nodeWebSocketTransport(), sessionPollMs: 50 });
  agent.onEvent((event) => events.push(event));
}, 180_000);

afterAll(async () => {
  await agent?.close();
  await product?.close();
});

const dashboard = (): FrameLocator => page.frameLocator('.instance-surface[data-app="task-dashboard"] iframe');
const tab = (name: string) => page.getByRole("tab", { name });
const card = (entry: string): Locator => dashboard().locator(`.td-task[data-entry="${entry}"]`);
const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
const sha256 = (input: string | Uint8Array) => createHash("sha256").update(input).digest("hex");
const step = <T>(run: () => Promise<T>) => explained(page, product.consoleLines, product.world, run);

describe("the task dashboard through the whole product", () => {
  it("is installed from Apps and opened by the agent in a conversation", () =>
    step(async () => {
      await page.goto(product.world.host.url);
      await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
      await installBuiltinApp(page, "Task Dashboard", "tasks.open");
      await tab("Chat").click();
      await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
      await page.getByRole("log").waitFor();
      // The conversation starts with its first message; the agent answers it before opening the dashboard.
      await say(page, "hello");
      await expect.poll(() => agent.sessions().length, { timeout: 15_000 }).toBeGreaterThan(0);
      sessionId = agent.sessions()[0]!.session_id;
      await expect.poll(() => events.some((e) => e.kind === "turn.completed"), { timeout: 30_000 }).toBe(true);
      await expect.poll(() => agent.inventory(sessionId)?.tools.map((t) => t.method) ?? [], { timeout: 15_000 }).toContain("tasks.open");
      expect(await agent.invokeTool(sessionId, "tasks.open", {}, { appScope: "task-dashboard" }).result).toEqual({ opened: true });
      // Generous waits: on a loaded 2-core CI machine loading an app's page alone has taken over 20 s.
      await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("task-dashboard");
      await expect.poll(() => dashboard().getByText("No tasks yet").count(), { timeout: 60_000 }).toBe(1);
    }), 240_000);

  it("write_note streams the note in; Cancel stops it", () =>
    step(async () => {
      await dashboard().getByLabel("Topic").fill("spring garden");
      await dashboard().getByRole("button", { name: "Write the note" }).click();
      const note = card("write_note");
      await note.waitFor({ timeout: 15_000 });
      // The words arrive as the agent writes them (about 40, one every 100 ms): some are there, not all.
      await expect.poll(() => note.locator(".td-stream").textContent().catch(() => ""), { timeout: 30_000, interval: 50 }).toMatch(/Spring garden deserves/);
      const partial = (await note.locator(".td-stream").textContent())!;
      expect(partial).not.toContain("Come back on Friday");
      expect(await note.locator(".td-badge").textContent()).toBe("Working");
      await note.getByRole("button", { name: "Cancel", exact: true }).click();
      await expect.poll(() => note.locator(".td-badge").textContent(), { timeout: 15_000 }).toBe("Stopped");
      // What was written stays, and nothing more comes; the stopped task may be run again, not decided.
      const kept = (await note.locator(".td-stream").textContent())!;
      expect(kept.startsWith(partial.replace(/\s+$/, ""))).toBe(true);
      expect(kept).not.toContain("Come back on Friday");
      expect(await note.getByRole("button", { name: "Retry", exact: true }).isEnabled()).toBe(true);
      expect(await note.getByRole("button", { name: "Accept", exact: true }).isDisabled()).toBe(true);
      expect(await dashboard().getByRole("status").textContent()).toContain("Write a note about spring garden: Stopped");
      await shot("task-dashboard-1-note-stopped");
    }), 120_000);

  it("the chat shows the task as a card, stopped too", () =>
    step(async () => {
      await tab("Chat").click();
      const chatCard = page.getByRole("log").locator('[data-kind="app-task"]').filter({ hasText: "spring garden" });
      await expect.poll(() => chatCard.count(), { timeout: 15_000 }).toBe(1);
      await expect.poll(() => chatCard.textContent(), { timeout: 15_000 }).toContain("Stopped");
      expect(await chatCard.textContent()).toContain("Task Dashboard");
      await shot("task-dashboard-2-chat-card");
    }), 60_000);

  it("plan_week returns the week; Accept, then Export evidence shows the pack's digest, and the pack verifies", () =>
    step(async () => {
      await tab("Task Dashboard").click();
      await dashboard().getByLabel("Notes").fill("Call the plumber\nDraft the budget\n?Sort the photos\nPay rent");
      await dashboard().getByRole("button", { name: "Plan the week" }).click();
      const plan = card("plan_week");
      await expect.poll(() => plan.locator(".td-badge").textContent(), { timeout: 30_000 }).toBe("Done");
      const days = await plan.locator(".td-day").evaluateAll((els) => els.map((el) => [el.querySelector("h4")!.textContent, [...el.querySelectorAll("li")].map((li) => li.textContent)]));
      expect(days).toEqual([
        ["Monday", ["Call the plumber"]],
        ["Tuesday", ["Draft the budget"]],
        ["Wednesday", ["Pay rent"]],
        ["Thursday", []],
        ["Friday", []],
      ]);
      expect(await plan.locator(".td-unscheduled li").allTextContents()).toEqual(["Sort the photos"]);
      // An undecided result: accept or reject it, or edit and resubmit; nothing to cancel or retry as it was.
      expect(await plan.getByRole("button", { name: "Cancel", exact: true }).isDisabled()).toBe(true);
      expect(await plan.getByRole("button", { name: "Retry", exact: true }).isDisabled()).toBe(true);

      await plan.getByRole("button", { name: "Accept", exact: true }).click();
      await expect.poll(() => plan.locator(".td-badge").textContent(), { timeout: 15_000 }).toBe("Done · accepted");
      expect(await plan.locator(".td-decision").textContent()).toBe("You accepted this result.");
      // An accepted result is done: no control is offered any more.
      expect(await plan.getByRole("group", { name: "Task controls" }).count()).toBe(0);
      // The agent is told in the conversation's log.
      const taskId = (await plan.getAttribute("data-task"))!;
      await expect
        .poll(() => events.some((e) => e.kind === "envelope" && JSON.stringify(e.data).includes('"lineup.task.decision"') && JSON.stringify(e.data).includes(taskId)), { timeout: 15_000 })
        .toBe(true);

      await plan.getByRole("button", { name: "Export evidence", exact: true }).click();
      await expect.poll(() => plan.locator(".td-digest code").textContent().catch(() => ""), { timeout: 30_000 }).toMatch(/^[0-9a-f]{64}$/);
      const digest = (await plan.locator(".td-digest code").textContent())!;
      await shot("task-dashboard-3-accepted-and-exported");

      // The pack, as the AppServer stored it: it verifies offline, covers the task and says which app asked.
      await expect.poll(() => events.some((e) => e.kind === "evidence.exported"), { timeout: 15_000 }).toBe(true);
      const exported = events.find((e) => e.kind === "evidence.exported")!.data as { task_id?: string; artifact: { artifact_id: string; sha256: string }; pack_digest: string; through_seq: number };
      expect(exported).toMatchObject({ task_id: taskId, pack_digest: digest });
      const { bytes } = await agent.readArtifact(sessionId, exported.artifact.artifact_id);
      expect(sha256(bytes)).toBe(exported.artifact.sha256);
      const pack = JSON.parse(new TextDecoder().decode(bytes)) as { digest: string; scope?: { task_id: string }; provenance: { kind: string; subject: string; provenance: { app_scope: string; app_version: string } }[] };
      expect(verifyEvidencePack(pack, sha256)).toMatchObject({ ok: true, value: { session_id: sessionId, through_seq: exported.through_seq } });
      expect(pack.digest).toBe(digest);
      expect(pack.scope?.task_id).toBe(taskId);
      expect(pack.provenance).toContainEqual(expect.objectContaining({ kind: "task", subject: taskId, provenance: expect.objectContaining({ app_scope: "task-dashboard", app_version: "1.0.0" }) }));
      expect(await plan.locator(".td-digest").textContent()).toContain(`events 1–${exported.through_seq}`);
    }), 120_000);

  it("a reload of the page shows the same tasks again, as they ended", () =>
    step(async () => {
      await page.reload();
      await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
      await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("task-dashboard");
      await expect.poll(() => dashboard().locator(".td-task").count(), { timeout: 60_000 }).toBe(2);
      expect(await dashboard().locator(".td-task").evaluateAll((els) => els.map((el) => el.getAttribute("data-entry")))).toEqual(["plan_week", "write_note"]);
      expect(await card("plan_week").locator(".td-badge").textContent()).toBe("Done · accepted");
      expect(await card("write_note").locator(".td-badge").textContent()).toBe("Stopped");
      // The newest opens with its result, replayed from its events.
      expect(await card("plan_week").locator(".td-unscheduled li").allTextContents()).toEqual(["Sort the photos"]);
      await card("write_note").getByRole("button", { name: /Write a note about spring garden/ }).click();
      await expect.poll(() => card("write_note").locator(".td-stream").textContent(), { timeout: 15_000 }).toMatch(/^Spring garden deserves/);
    }), 180_000);

  it("Retry runs the stopped note again to its end; Reject with a reason tells the agent, who answers in the chat; Edit & resubmit asks again", () =>
    step(async () => {
      const note = card("write_note");
      await note.getByRole("button", { name: "Retry", exact: true }).click();
      await expect.poll(() => note.locator(".td-badge").textContent(), { timeout: 30_000 }).toBe("Done");
      expect(await note.locator(".td-task-meta").textContent()).toContain("attempt 2");
      expect(await note.locator(".td-result-note h4").textContent()).toBe("A note on spring garden");
      expect(await note.locator(".td-result-note p").textContent()).toMatch(/^Spring garden deserves a few quiet minutes\..*Come back on Friday and see what changed\.$/);
      expect(await note.getByRole("list", { name: "Earlier attempts" }).textContent()).toBe("Attempt 1: Stopped");
      await note.getByLabel("Reason for rejecting (the agent is told)").fill("Make it about tomatoes");
      await note.getByRole("button", { name: "Reject", exact: true }).click();
      await expect.poll(() => note.locator(".td-badge").textContent(), { timeout: 15_000 }).toBe("Done · rejected");
      expect(await note.locator(".td-decision").textContent()).toBe("You rejected this result: Make it about tomatoes");
      // A rejected result may be tried again; it cannot be accepted after all.
      expect(await note.getByRole("button", { name: "Retry", exact: true }).isEnabled()).toBe(true);
      expect(await note.getByRole("button", { name: "Accept", exact: true }).isDisabled()).toBe(true);

      // Edit & resubmit: the topic as the task had it, changed, is the next attempt's input.
      await note.getByRole("button", { name: "Edit & resubmit", exact: true }).click();
      const editor = note.getByRole("group", { name: "Edit and resubmit" });
      expect(await editor.getByLabel("Topic").inputValue()).toBe("spring garden");
      await editor.getByLabel("Topic").fill("tomatoes");
      await editor.getByRole("button", { name: "Resubmit", exact: true }).click();
      await expect.poll(() => note.locator(".td-result-note h4").textContent().catch(() => ""), { timeout: 30_000 }).toBe("A note on tomatoes");
      expect(await note.locator(".td-badge").textContent()).toBe("Done");
      expect(await note.locator(".td-task-meta").textContent()).toContain("attempt 3");
      await tab("Chat").click();
      await expect.poll(() => page.getByRole("log").textContent(), { timeout: 15_000 }).toContain("Understood: Make it about tomatoes");
    }), 120_000);

  it("summarize_files sums up the conversation's text files the person picks", () =>
    step(async () => {
      const share = (name: string, text: string) => agent.shareArtifact(sessionId, { name, mime_type: "text/plain", bytes: new TextEncoder().encode(text) });
      await share("groceries.txt", "Tomatoes\nBasil and garlic\nOlive oil\n");
      await share("ideas.txt", "Grow tomatoes on the balcony this year\n");
      await tab("Task Dashboard").click();
      await dashboard().getByRole("button", { name: "Refresh files" }).click();
      const files = dashboard().getByRole("group", { name: "Files to summarize" });
      await expect.poll(() => files.getByRole("checkbox").count(), { timeout: 15_000 }).toBe(2);
      await files.getByRole("checkbox", { name: /groceries\.txt/ }).check();
      await files.getByRole("checkbox", { name: /ideas\.txt/ }).check();
      await dashboard().getByRole("button", { name: "Summarize", exact: true }).click();
      const summary = card("summarize_files");
      await expect.poll(() => summary.locator(".td-badge").textContent(), { timeout: 30_000 }).toBe("Done");
      expect(await summary.locator(".td-task-title").textContent()).toBe("Summarize 2 files");
      const rows = await summary.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
      expect(rows.sort()).toEqual([
        ["groceries.txt", "3", "6", "Tomatoes"],
        ["ideas.txt", "1", "7", "Grow tomatoes on the balcony this year"],
      ]);
      expect(await summary.locator(".td-result-files p").textContent()).toMatch(/^Read 2 files: 4 lines and 13 words in all\./);
      await shot("task-dashboard-4-files-summed-up");
      expect(product.pageErrors).toEqual([]);
    }), 120_000);
});
