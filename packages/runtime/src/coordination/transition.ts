/**
 * The Runtime's pure transition: `(state, input, reads) → { next state, store writes, effects,
 * deliveries, audit drafts, reply }`. It never awaits and never touches the store; each input kind has
 * its handler in `handlers/`.
 */
import { filterReads } from "./filter-chain.js";
import { acknowledgeReads, onAcknowledge } from "./handlers/acknowledge.js";
import { dispatchReads, onDispatch, onStartConversation } from "./handlers/app-actions.js";
import type { TransitionEnv } from "./handlers/env.js";
import { foldTaskEvent, onCaughtUp, onEvent, onMalformedEvent } from "./handlers/ingest.js";
import { onIdentitySave, onLifecycle } from "./handlers/lifecycle.js";
import { onOutboxSettled, settleEchoedEntry } from "./handlers/outbox-settled.js";
import { followInventoryEvent, settleInventoryPublication } from "./handlers/inventory-sync.js";
import { onAgentPresence, onSessionsListed, onSubscribeFailed } from "./handlers/sessions.js";
import { onAppRequest } from "./handlers/apps.js";
import { onAppEvent } from "./handlers/app-events.js";
import { artifactCacheReads, artifactCreateReads, artifactsReleaseReads, onArtifactCache, onArtifactCreate, onArtifactsRelease } from "./handlers/artifacts.js";
import { onHostIntent, onInstance, onInstancesTick } from "./handlers/instances.js";
import { onSettings, settingsReads } from "./handlers/settings.js";
import { onResultCard, resultCardReads } from "./handlers/result-cards.js";
import { onSessionDataReplace, sessionDataReads } from "./handlers/session-data.js";
import { onTurnCancel } from "./handlers/turn-cancel.js";
import { onTaskControl, onTaskStart } from "./handlers/tasks.js";
import { afterAppRequestWorkflows, onWorkflow, resumeWorkflows } from "./handlers/workflows.js";
import { onToolReport, onToolsTick, resumeTools } from "./handlers/tools.js";
import { endCallsOfEndedRuns, onWorkflowToolCall, workflowToolReads } from "./handlers/workflow-tools.js";
import { republishInventories } from "./inventories.js";
import { Step } from "./step.js";
import { afterAppRequest, afterSettings, onCapabilitiesTick, onCapabilityHostCompleted, onCapabilityRequest, onCapabilitySystemAnswer, onCapabilityUserAnswer } from "./handlers/capabilities.js";
import type { ReadKey, Reads, RuntimeInput, TransitionResult } from "./inputs.js";
import type { RuntimeState } from "./state.js";
import { toTimestamp } from "../core/ports.js";

export type { TransitionEnv } from "./handlers/env.js";

/** The store keys `transition` will look at for `input`; the shell reads them first. */
export function readsFor(input: RuntimeInput): ReadKey[] {
  switch (input.kind) {
    case "event":
      return filterReads(input.event);
    case "dispatch":
      return dispatchReads(input);
    case "acknowledge":
      return acknowledgeReads(input);
    case "artifact.cache":
      return artifactCacheReads(input);
    case "artifacts.release":
      return artifactsReleaseReads(input);
    case "artifact.create":
      return artifactCreateReads(input);
    case "workflow.tool_call":
      return workflowToolReads(input);
    case "session_data.replace":
      return sessionDataReads(input);
    case "settings":
      return settingsReads(input);
    case "result_card":
      return resultCardReads(input);
    default:
      return [];
  }
}

export function transition(state: RuntimeState, input: RuntimeInput, reads: Reads, env: TransitionEnv): TransitionResult {
  switch (input.kind) {
    case "lifecycle":
      return onLifecycle(state, input);
    case "identity.save":
      return onIdentitySave(state);
    case "sessions.listed":
      return onSessionsListed(state, input, env);
    case "session.subscribe_failed":
      return onSubscribeFailed(state, input, env);
    case "event":
      return followInventoryEvent(state, input.event, settleEchoedEntry(state, input.event, foldTaskEvent(state, input.event, onEvent(state, input, reads, env), env)), env);
    case "event.malformed":
      return onMalformedEvent(state, input);
    case "caught_up":
      return onCaughtUp(state, input, env);
    case "agent.presence":
      return onAgentPresence(state, input);
    case "dispatch":
      return onDispatch(state, input, reads, env);
    case "conversation.start":
      return onStartConversation(state, input, env);
    case "turn.cancel":
      return onTurnCancel(state, input, env);
    case "task.start":
      return onTaskStart(state, input, env);
    case "task.control":
      return onTaskControl(state, input, env);
    case "workflow":
      return endCallsOfEndedRuns(onWorkflow(state, input, env), env);
    case "workflow.tool_call":
      return onWorkflowToolCall(state, input, reads, env);
    case "acknowledge":
      return onAcknowledge(state, input, reads);
    case "outbox.settled":
      return settleInventoryPublication(state, input, onOutboxSettled(state, input, toTimestamp(env.now())), env);
    case "apps.resume": {
      const step = new Step(state);
      resumeTools(step, env);
      // The host may offer other capabilities or features than last run: publish what changed, once.
      republishInventories(step, env);
      // Workflow runs that had not ended pick up at their step.
      return resumeWorkflows(step.result(), env);
    }
    case "host.intent":
      return onHostIntent(state, input, env);
    case "host.changed": {
      const step = new Step(state);
      step.audit.push({ type: `host.${input.what}.changed`, detail: input.detail.slice(0, 500) });
      republishInventories(step, env);
      return step.result();
    }
    case "app.request":
      // The Capability Gateway: requests of an app that is no longer enabled end here too.
      return endCallsOfEndedRuns(afterAppRequestWorkflows(afterAppRequest(onAppRequest(state, input, env), env), env), env);
    case "instance":
      return onInstance(state, input, env);
    case "tool.report":
      return onToolReport(state, input, env);
    case "tools.tick":
      return onToolsTick(state, env);
    case "instances.tick":
      return onInstancesTick(state, env);
    case "artifact.create":
      return onArtifactCreate(state, input, reads, env);
    case "artifact.cache":
      return onArtifactCache(state, input, reads, env);
    case "artifacts.release":
      return onArtifactsRelease(state, input, reads);
    case "app.event":
      return onAppEvent(state, input, env);
    case "session_data.replace":
      return onSessionDataReplace(state, input, reads);
    case "result_card":
      return onResultCard(state, input, reads);
    case "settings":
      // The Capability Gateway: a grant denied in settings ends that capability's waiting requests.
      return afterSettings(onSettings(state, input, reads, env), input, env);
    // --- Capability Gateway (handlers/capabilities.ts) ---
    case "capability.request":
      return onCapabilityRequest(state, input, env);
    case "capability.user_answer":
      return onCapabilityUserAnswer(state, input, env);
    case "capability.system_answer":
      return onCapabilitySystemAnswer(state, input, env);
    case "capability.host_completed":
      return onCapabilityHostCompleted(state, input, env);
    case "capabilities.tick":
      return onCapabilitiesTick(state, env);
  }
}
