import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { AgentAppMessage, LineUpAppRuntimeSDK } from "@lineup/app-sdk";
import type { InteractionAnswer } from "@lineup/runtime";
import type { Notifications } from "../../shell/notifications.js";
import { Composer } from "./Composer.js";
import { ConversationFiles } from "./ConversationFiles.js";
import { HistoryPager } from "./history-pager.js";
import { confirmEchoes, failEchoes, updateEcho, type EchoEntry } from "./local-echo.js";
import { RowView, type ChatItem, type RowHandlers } from "./RowView.js";
import { Timeline } from "./Timeline.js";
import { EMPTY_TIMELINE, foldMessages, markAnswered, openTurns, summarizeAnswer, TIMELINE_TYPES, type AgentStatus, type TimelineModel, type TimelineRow } from "@lineup/app-sdk/chat";
import { t } from "../../i18n/index.js";
import { reasonText } from "../../i18n/reasons.js";

interface Props {
  readonly sdk: LineUpAppRuntimeSDK;
  readonly conversation_id: string;
  readonly title: string;
  readonly notifications: Notifications;
  /** Sent once when the view opens: the message that started this conversation. */
  readonly firstMessage?: string;
  readonly onFirstSent?: () => void;
  /** An installed app's name for people; undefined when it is not installed. */
  readonly appName?: (appScope: string) => string | undefined;
  /** Whether the agent is connected to the AppServer now (the Runtime's view); undefined when unknown. */
  readonly agentConnected?: boolean;
}

const STATUS_TEXT = {
  waiting_for_agent: "chat.status.waitingForAgent",
  thinking: "chat.status.thinking",
  working: "chat.status.working",
  waiting_for_user: "chat.status.waitingForUser",
  stopped: "chat.status.stopped",
} as const;

/**
 * The status line under the conversation: the agent's own status, else what the person's message waits
 * for. An agent known not to be connected is said so (what was sent reaches it when it connects); unknown
 * (offline, an older server) says nothing more than before.
 */
export function statusLine(status: AgentStatus | undefined, agentConnected: boolean | undefined, stopping = false): string {
  if (stopping) return t("chat.status.stopping");
  if (agentConnected === false && (status === undefined || status.state === "waiting_for_agent")) {
    return t(status === undefined ? "chat.status.notConnected" : "chat.status.sentNotConnected");
  }
  return status === undefined ? "\u00a0" : (status.label ?? t(STATUS_TEXT[status.state]));
}
let nextLocalId = 1;

/**
 * One conversation: its timeline (history paged from the store, then live messages), the agent's status
 * line, and the composer with local echo. Everything goes through the app SDK.
 */
export function ConversationView({ sdk, conversation_id, title, notifications, firstMessage, onFirstSent, appName, agentConnected }: Props) {
  const [model, setModel] = useState<TimelineModel>(EMPTY_TIMELINE);
  const [echoes, setEchoes] = useState<readonly EchoEntry[]>([]);
  const [announcement, setAnnouncement] = useState("");
  const pager = useRef<HistoryPager | undefined>(undefined);
  const loadingOlder = useRef(false);

  useEffect(() => {
    let live = true;
    let ready = false;
    const early: AgentAppMessage[] = [];
    setModel(EMPTY_TIMELINE);
    setEchoes([]);
    const apply = (messages: readonly AgentAppMessage[]) => setModel((m) => foldMessages(m, messages));
    // Subscribe first and buffer, so nothing delivered while the history loads is lost.
    // `include_pending`: what arrived while this conversation was not on screen is delivered now — and so
    // read (display messages are acknowledged on delivery), which clears its unread count. Folding is by
    // message_id, so a message both in the history page and delivered shows once.
    const off = sdk.agentMessages.subscribe({ conversation_id, types: TIMELINE_TYPES, include_pending: true }, (message) => {
      if (!live) return;
      if (!ready) {
        early.push(message);
        return;
      }
      apply([message]);
      setEchoes((e) => confirmEchoes(e, [message]));
      if (message.type === "lineup.message" && message.sender.kind === "agent") {
        const text = (message.payload as { text?: unknown }).text;
        if (typeof text === "string") setAnnouncement(t("chat.agentSaid", { text: text.slice(0, 300) }));
      }
    });
    const history = new HistoryPager(sdk.agentMessages, conversation_id);
    pager.current = history;
    history
      .openLatest()
      .then((messages) => {
        if (!live) return;
        ready = true;
        apply([...messages, ...early]);
        setEchoes((e) => confirmEchoes(e, early));
      })
      .catch((error: unknown) => {
        ready = true;
        notifications.push(t("chat.couldNotLoadHistory", { reason: reasonText(error) }), "error");
      });
    return () => {
      live = false;
      off();
    };
  }, [sdk, conversation_id, notifications]);

  // A card of a turn the person stopped waits for nobody: it leaves the backlog (and the unread count that
  // says it waits for an answer), once.
  const released = useRef(new Set<string>());
  useEffect(() => {
    for (const row of model.rows) {
      if (row.kind !== "card" || row.answer?.outcome !== "stopped" || released.current.has(row.message_id)) continue;
      released.current.add(row.message_id);
      void sdk.agentMessages.acknowledge(row.message_id).catch(() => undefined); // already out of the backlog
    }
  }, [sdk, model]);

  // Refusals the Runtime reports for good turn pending echoes into failed ones.
  useEffect(() => {
    const check = () => setEchoes((e) => failEchoes(e, sdk.state.snapshot().failed_actions.filter((f) => f.conversation_id === conversation_id)));
    check();
    return sdk.state.subscribe((_view, change) => {
      if (change.actions) check();
    });
  }, [sdk, conversation_id]);

  const loadOlder = useCallback(() => {
    const history = pager.current;
    if (history === undefined || loadingOlder.current || !history.hasOlder()) return;
    loadingOlder.current = true;
    history
      .loadOlder()
      .then((messages) => setModel((m) => foldMessages(m, messages)))
      .catch(() => undefined)
      .finally(() => {
        loadingOlder.current = false;
      });
  }, []);

  const send = useCallback(
    (text: string, existing?: string) => {
      const local_id = existing ?? `local-${nextLocalId++}`;
      setEchoes((e) => (existing === undefined ? [...e, { local_id, conversation_id, text, status: "sending" }] : updateEcho(e, local_id, { status: "sending" })));
      sdk.actions.dispatch({ type: "conversation.send_text", conversation_id, text }).then(
        (receipt) => setEchoes((e) => updateEcho(e, local_id, { status: "queued", receipt_id: receipt.receipt_id })),
        (error: unknown) => setEchoes((e) => updateEcho(e, local_id, { status: "failed", error: error instanceof Error ? error.message : String(error) })),
      );
    },
    [sdk, conversation_id],
  );

  // While a turn is open the person can stop the agent (Stop, or Escape in the composer); the status line
  // says so until the Runtime's copy of the log says the turn ended.
  const open = useMemo(() => openTurns(model).join(" "), [model.turns]);
  const working = open !== "";
  const [stopping, setStopping] = useState(false);
  // A turn ended (the stopped one, or any): the next Stop is a new one.
  useEffect(() => setStopping(false), [open, conversation_id]);
  const stop = useCallback(() => {
    setStopping(true);
    sdk.actions.cancelTurn(conversation_id).catch((error: unknown) => {
      setStopping(false);
      // `invalid_state`: the turn ended meanwhile, there is nothing left to stop.
      if ((error as { code?: unknown }).code !== "invalid_state") notifications.push(t("chat.couldNotStop", { reason: reasonText(error) }), "error");
    });
  }, [sdk, conversation_id, notifications]);

  const sentFirst = useRef(false);
  useEffect(() => {
    if (firstMessage === undefined || sentFirst.current) return;
    sentFirst.current = true;
    send(firstMessage);
    onFirstSent?.();
  }, [firstMessage, onFirstSent, send]);

  const handlers = useMemo<RowHandlers>(
    () => ({
      onRetry: (localId) => {
        setEchoes((e) => {
          const echo = e.find((x) => x.local_id === localId);
          if (echo !== undefined) queueMicrotask(() => send(echo.text, localId));
          return e;
        });
      },
      onAnswer: async (messageId, response: InteractionAnswer) => {
        const row = model.rows.find((r): r is Extract<TimelineRow, { kind: "card" }> => r.kind === "card" && r.message_id === messageId);
        try {
          await sdk.actions.dispatch({ type: "interaction.answer", conversation_id, message_id: messageId, response });
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          if (code !== "invalid_state") {
            notifications.push(t("chat.answerNotSent", { reason: reasonText(error) }), "error");
            return;
          }
          // Already answered (on another tab or before a reload): show it as answered.
        }
        if (row === undefined) return;
        const answer = summarizeAnswer(row.card, response);
        setModel((m) => markAnswered(m, messageId, answer));
      },
      readArtifact: (artifactId, maxBytes) => sdk.artifacts.read(artifactId, { conversation_id, max_bytes: maxBytes }),
      ...(appName === undefined ? {} : { appName }),
    }),
    [sdk, conversation_id, model, notifications, send, appName],
  );

  // The files the timeline shows: when it changes, an open Files list reads the conversation's files again.
  const filesSeen = useMemo(() => model.rows.reduce((n, row) => (row.kind === "artifact" ? n + 1 : n), 0), [model.rows]);
  const items = useMemo<readonly ChatItem[]>(() => [...model.rows, ...echoes.map((e) => ({ ...e, kind: "echo" as const, key: `echo:${e.local_id}` }))], [model.rows, echoes]);

  return (
    <section class="conversation" aria-label={t("chat.conversationLabel", { title })}>
      <ConversationFiles sdk={sdk} conversation_id={conversation_id} seen={filesSeen} read={handlers.readArtifact} {...(appName === undefined ? {} : { appName })} />
      <Timeline items={items} label={t("chat.messagesIn", { title })} onNearTop={loadOlder} pinKey={echoes.at(-1)?.local_id} render={(item) => <RowView item={item} handlers={handlers} />} />
      <div class="sr-only" aria-live="polite" aria-atomic="true">
        {announcement}
      </div>
      <div class="status-line" data-status={stopping ? "stopping" : (model.status?.state ?? "idle")} data-agent={agentConnected === undefined ? "unknown" : agentConnected ? "connected" : "away"} aria-live="polite">
        {statusLine(model.status, agentConnected, stopping)}
      </div>
      <Composer onSend={(text) => send(text)} disabled={false} {...(working ? { onStop: stop, stopping } : {})} />
    </section>
  );
}
