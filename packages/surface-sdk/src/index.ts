/** @lineup/surface-sdk — the SDK inside a sandboxed LineUp app. Platform-neutral: no `node:*` here (the build command is at ./node). */
export { connectSurface, type AppContext, type CapabilityRequest, type ConnectOptions, type Surface } from "./surface.js";
export type { AppLifecycleAPI, ClosingListener, ClosingNotice, LifecycleState } from "./lifecycle.js";
export type { MiniAppSessionDataAPI, SessionDataSnapshot } from "./session-data.js";
export { LocalSessionData } from "./local-session-data.js";
export { replaceWithRetry, SessionDataStore } from "./session-data-store.js";
export type { AgentMessage, AgentMessageAPI, AgentMessageFilter, AgentMessageListRequest, AgentMessagePage, StatePatch } from "./agent-messages.js";
export { TASK_EVENTS_PAGE, type AgentTaskHandle } from "@lineup/protocol";
export type { AgentTask, AgentTaskEvent, AgentTaskInput, AgentTaskRequest, AgentTaskResult, AgentTaskStatus } from "@lineup/protocol";
export type { DiagnosticsSink, SurfaceDiagnostic, Unsubscribe } from "./emitter.js";
export type { BridgePort } from "./port.js";
export type { HandoverEvent, HandoverSource } from "./handshake.js";
export { applyThemeVariables, type ThemeTarget } from "./theme.js";
export { isSimplifiedChinese } from "@lineup/protocol";
export {
  AGENT_TOOLS,
  checkAgentTools,
  defineAgentTools,
  isAgentTools,
  isTimedOperation,
  MAX_TIMED_OPERATION_MS,
  TIMED_OPERATION,
  timedOperation,
  toolDescriptors,
  type AgentTool,
  type AgentToolDefinition,
  type AgentToolDescriptorFields,
  type AgentTools,
  type ToolContext,
  type TimedOperation,
  type ToolProgress,
} from "./tools/define.js";
export { isAppToolErrorCode, ToolFailure, type AppToolErrorCode } from "./tools/failure.js";
export { lateBound, type LateBound } from "./tools/late-bound.js";
