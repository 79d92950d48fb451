/**
 * The MCP Apps view of a chat row's tool call, if its tool names one. Every tool row holds one: it reads the call
 * from the Runtime (again as the row's phase moves) and fetches the card (`McpViewCard.tsx`, a chunk of its own)
 * only for a call whose tool has a view. A card that cannot be fetched says so in the row.
 */
import { useContext, useEffect, useState } from "preact/hooks";
import type { LineUpRuntime, ToolCallView } from "@lineup/runtime";
import { ResultCardContext } from "./ResultCard.js";
import { lazyModule, useLazyModule } from "../shell/lazy-module.js";
import { t } from "../i18n/index.js";
import { reasonText } from "../i18n/reasons.js";

const viewCard = lazyModule("MCP view card", () => import("./McpViewCard.js"));

function useCall(runtime: LineUpRuntime | undefined, callId: string, phase: string): ToolCallView | undefined {
  const [call, setCall] = useState<ToolCallView | undefined>(undefined);
  useEffect(() => {
    if (runtime === undefined) return;
    let live = true;
    void runtime
      .appPort("chat")
      .toolCall(callId)
      .then((found) => live && setCall(found), () => undefined);
    return () => {
      live = false;
    };
    // The row's phase moves as the Runtime's outputs arrive: read the call again each time.
  }, [runtime, callId, phase]);
  return call;
}

export function McpViewRow({ callId, phase, appName }: { callId: string; phase: string; appName: string }) {
  const runtime = useContext(ResultCardContext);
  const call = useCall(runtime, callId, phase);
  if (call?.view === undefined) return null;
  return <ViewCard call={call} appName={appName} />;
}

function ViewCard({ call, appName }: { call: ToolCallView; appName: string }) {
  const state = useLazyModule(viewCard);
  if (state.status === "loaded") return <state.module.McpViewCard call={call} appName={appName} />;
  if (state.status === "loading") return null;
  return <p class="result-card-gone">{t("mcpView.failed", { reason: reasonText(state.error) })}</p>;
}
