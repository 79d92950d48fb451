import { useEffect, useState } from "preact/hooks";
import type { LineUpAppRuntimeSDK, RuntimeView } from "@lineup/app-sdk";
import type { HostConfig } from "../../bootstrap/config.js";
import type { Notifications } from "../../shell/notifications.js";
import { Composer } from "./Composer.js";
import { ConversationView } from "./ConversationView.js";
import { Timeline } from "./Timeline.js";
import { conversationTitle } from "./title.js";
import { chatConversations, conversationLabel, rememberConversation, rememberedConversation, shownConversation } from "./selection.js";
import { t } from "../../i18n/index.js";
import { reasonText } from "../../i18n/reasons.js";

/**
 * The Interaction App in IM mode: conversations on the left, the open one on the right. Only the app SDK
 * (`state`, `agentMessages`, `actions`) — chat never sees the transport.
 *
 * "New conversation" opens an empty one on screen; it is started (stored, then sent in order with
 * everything else) when the person sends its first message, and titled after that message.
 */
/** `appName`: an installed app's name for people, as the shell's tabs show it; undefined when it is not installed. */
export function ChatApp({ sdk, config, notifications, appName }: { sdk: LineUpAppRuntimeSDK; config: HostConfig; notifications: Notifications; appName?: (appScope: string) => string | undefined }) {
  const [view, setView] = useState<RuntimeView>(sdk.state.snapshot());
  const [selected, setSelected] = useState<string | undefined>(rememberedConversation);
  const [starting, setStarting] = useState(false);
  /** An empty conversation on screen, not started until its first message. */
  const [draft, setDraft] = useState(false);
  /** The first message of a conversation just started from the draft, for its view to send (with its echo). */
  const [first, setFirst] = useState<{ readonly conversation_id: string; readonly text: string } | undefined>(undefined);

  useEffect(() => {
    setView(sdk.state.snapshot());
    return sdk.state.subscribe((next, change) => {
      if (change.conversations || change.lifecycle || change.actions) setView(next);
    });
  }, [sdk]);

  const conversations = chatConversations(view.conversations);
  const current = shownConversation(conversations, selected);

  const select = (id: string) => {
    setDraft(false);
    setSelected(id);
    rememberConversation(id);
  };

  const startWith = async (text: string): Promise<boolean> => {
    setStarting(true);
    try {
      const receipt = await sdk.actions.dispatch({ type: "conversation.start", agent_id: config.agent_id, workspace_id: config.workspace_id, title: conversationTitle(text) });
      setFirst({ conversation_id: receipt.conversation_id, text });
      select(receipt.conversation_id);
      return true;
    } catch (error) {
      notifications.push(t("chat.couldNotStart", { reason: reasonText(error) }), "error");
      return false;
    } finally {
      setStarting(false);
    }
  };

  return (
    <div class="chat">
      <aside class="conversations" aria-label={t("chat.conversations")}>
        <button type="button" class="primary new-conversation" disabled={starting} aria-pressed={draft} onClick={() => setDraft(true)}>
          {t("chat.newConversationButton")}
        </button>
        <ul class="conversation-list">
          {conversations.map((c) => (
            <li key={c.conversation_id}>
              <button
                type="button"
                class={!draft && c.conversation_id === current?.conversation_id ? "conversation-item active" : "conversation-item"}
                aria-current={!draft && c.conversation_id === current?.conversation_id ? "true" : undefined}
                onClick={() => select(c.conversation_id)}
              >
                <span class="conversation-title">{conversationLabel(c)}</span>
                <span class="muted conversation-meta">
                  {c.status === "live" ? "" : t(`conversation.${c.status}`)}
                  {c.unread === 0 ? null : c.conversation_id === current?.conversation_id ? (
                    // On screen, what is left counted is what waits for an answer (a card), not unread text.
                    <span class="badge waiting" aria-label={t("chat.waitingForAnswer", { count: c.unread })} title={t("chat.waitingForAnswerTitle")}>
                      {c.unread}
                    </span>
                  ) : (
                    <span class="badge" aria-label={t("chat.unread", { count: c.unread })}>
                      {c.unread}
                    </span>
                  )}
                </span>
              </button>
            </li>
          ))}
        </ul>
        {view.queued_actions > 0 ? <p class="muted queued">{t("chat.queued", { count: view.queued_actions })}</p> : null}
      </aside>
      {draft ? (
        <NewConversation onSend={startWith} disabled={starting} />
      ) : current === undefined ? (
        <div class="empty-chat">
          <h1>{t("chat.welcome")}</h1>
          <p>{t("chat.welcomeHint")}</p>
        </div>
      ) : (
        <ConversationView
          key={current.conversation_id}
          sdk={sdk}
          conversation_id={current.conversation_id}
          title={conversationLabel(current)}
          notifications={notifications}
          {...(appName === undefined ? {} : { appName })}
          {...(current.agent_connected === undefined ? {} : { agentConnected: current.agent_connected })}
          {...(first?.conversation_id === current.conversation_id ? { firstMessage: first.text, onFirstSent: () => setFirst(undefined) } : {})}
        />
      )}
    </div>
  );
}

/** A conversation not started yet: an empty log and the composer; its first message starts it. */
function NewConversation({ onSend, disabled }: { onSend: (text: string) => Promise<boolean>; disabled: boolean }) {
  return (
    <section class="conversation draft" aria-label={t("chat.newConversation")}>
      <Timeline items={[]} label={t("chat.messagesIn", { title: t("chat.newConversation") })} render={() => null} />
      <p class="muted draft-hint">{t("chat.draftHint")}</p>
      <Composer onSend={onSend} disabled={disabled} />
    </section>
  );
}
