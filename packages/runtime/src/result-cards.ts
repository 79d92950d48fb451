/**
 * Result cards (spec 6.3 inline card): after an app's tool result is committed, the chat keeps a copy of the
 * app's session data beside that turn, shown by the app's `inline_card` entrypoint. The card is made here,
 * from committed rows, and written by the loop (`result_card`), which keeps a call's first card only.
 */
import type { AppManifest, JsonValue } from "@lineup/protocol";
import type { RuntimeAppManager } from "./app-lifecycle/app-manager-api.js";
import type { RuntimeInput } from "./coordination/inputs.js";
import { toTimestamp } from "./core/ports.js";
import { RUNTIME_COLLECTIONS } from "./persistence/runtime-schema.js";
import type { RuntimeStore } from "./persistence/store.js";
import type { SessionContext } from "./session-data/context.js";
import type { SessionDataService } from "./session-data/service.js";
import type { ResultCard } from "./runtime.js";

export interface ResultCardParts {
  readonly store: Pick<RuntimeStore, "get">;
  readonly manager: Pick<RuntimeAppManager, "getApp">;
  /** The app's active manifest alone: read on every result, where `getApp`'s details would project it whole. */
  readonly activeManifest: (appScope: string) => AppManifest | undefined;
  readonly sessionData: Pick<SessionDataService, "get">;
  readonly contextFor: (appScope: string, appSessionId: string) => SessionContext;
  readonly now: () => number;
  readonly post: (input: Extract<RuntimeInput, { kind: "result_card" }>) => Promise<unknown>;
}

/** After an app's result is committed: if the app has an `inline_card` entrypoint, freeze its session data for the chat. */
export async function captureResultCard(parts: ResultCardParts, appScope: string, callId: string): Promise<void> {
  const { store, manager } = parts;
  const cardEntrypoint = (): AppManifest["entrypoints"][number] | undefined => parts.activeManifest(appScope)?.entrypoints.find((e) => (e.display_modes ?? []).includes("inline_card"));
  // Most apps show no card: their results cost no store reads here.
  if (cardEntrypoint() === undefined) return;
  if ((await store.get(RUNTIME_COLLECTIONS.resultCards, callId)) !== undefined) return;
  const call = (await store.get(RUNTIME_COLLECTIONS.toolCalls, callId)) as unknown as { phase?: string; call_model?: string; conversation_id?: string; workflow?: unknown; outputs?: { type: string }[] } | undefined;
  if (call?.phase !== "terminal" || call.outputs?.at(-1)?.type !== "lineup.tool.result" || call.conversation_id === undefined) return;
  // A workflow's call is no turn of the chat's: there is nothing to show a card beside.
  if (call.workflow !== undefined) return;
  // Work that changed something gets a card; a query (reading the board back) does not.
  if (call.call_model === "query") return;
  const details = manager.getApp(appScope);
  const entry = cardEntrypoint();
  if (details === undefined || entry === undefined) return;
  const snapshot = await parts.sessionData.get(parts.contextFor(appScope, call.conversation_id));
  if (!snapshot.ok) return;
  const card: ResultCard = {
    call_id: callId,
    app_scope: appScope,
    app_version: details.record.installed_version,
    conversation_id: call.conversation_id,
    entrypoint: entry.id,
    data: snapshot.value,
    captured_at: toTimestamp(parts.now()),
  };
  await parts.post({ kind: "result_card", call_id: callId, card: card as unknown as JsonValue });
}
