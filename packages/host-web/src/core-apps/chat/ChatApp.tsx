import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { LineUpAppRuntimeSDK } from "@lineup/app-sdk";
import type { ConversationSummary } from "@lineup/runtime";
import type { HostConfig } from "../../bootstrap/config.js";
import type { Notifications } from "../../shell/notifications.js";
import { Composer } from "./Composer.js";
import { ConversationList } from "./ConversationList.js";
import { ConversationView } from "./ConversationView.js";
import { Timeline } from "./Timeline.js";
import { conversationTitle } from "./title.js";
import { chatConversations, conversationLabel, rememberConversation, rememberedConversation, shownConversation } from "./selection.js";
import { t, uiLanguage } from "../../i18n/index.js";
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
  const [, rendered] = useState(0);
  const [selected, setSelected] = useState<string | undefined>(rememberedConversation);
  const [starting, setStarting] = useState(false);
  /** An empty conversation on screen, not started until its first message. */
  const [draft, setDraft] = useState(false);
  /** The first message of a conversation just started from the draft, for its view to send (with its echo). */
  const [first, setFirst] = useState<{ readonly conversation_id: string; readonly text: string } | undefined>(undefined);
  /** What the person typed to find a conversation by its title. */
  const [query, setQuery] = useState("");
  /** The column the list of conversations scrolls in. */
  const column = useRef<HTMLElement>(null);

  useEffect(() => followView(sdk, () => rendered((n) => n + 1)), [sdk]);

  // Read at each render, so a render for another reason (a conversation just started and selected) never shows
  // an older list than the Runtime has.
  const view = sdk.state.snapshot();
  const conversations = useMemo(() => chatConversations(view.conversations), [view.conversations]);
  const found = useMemo(() => conversationsCalled(conversations, query), [conversations, query]);
  const current = shownConversation(conversations, selected);

  // Stable, so that a list item whose summary did not change is not rendered again.
  const select = useCallback((id: string) => {
    setDraft(false);
    setSelected(id);
    rememberConversation(id);
  }, []);
  const onFirstSent = useCallback(() => setFirst(undefined), []);

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

  // Read in the list's and the open conversation's renders: a switch renders them again.
  const language = uiLanguage();
  // The open conversation is rendered again only when what it is given changes, not when another conversation's
  // summary does: a person may have a thousand, and a message in any of them changes the list.
  const currentId = current?.conversation_id;
  const title = current === undefined ? undefined : conversationLabel(current);
  const agentConnected = current?.agent_connected;
  const firstMessage = first !== undefined && first.conversation_id === currentId ? first.text : undefined;
  const conversationView = useMemo(
    () =>
      currentId === undefined || title === undefined ? null : (
        <ConversationView
          key={currentId}
          sdk={sdk}
          conversation_id={currentId}
          title={title}
          notifications={notifications}
          {...(appName === undefined ? {} : { appName })}
          {...(agentConnected === undefined ? {} : { agentConnected })}
          {...(firstMessage === undefined ? {} : { firstMessage, onFirstSent })}
        />
      ),
    [sdk, notifications, appName, onFirstSent, currentId, title, agentConnected, firstMessage, language],
  );

  return (
    <div class="chat">
      <aside class="conversations" aria-label={t("chat.conversations")} ref={column}>
        <button type="button" class="primary new-conversation" disabled={starting} aria-pressed={draft} onClick={() => (setDraft(true), setQuery(""))}>
          {t("chat.newConversationButton")}
        </button>
        {conversations.length >= FIND_FROM || query !== "" ? (
          <input
            type="search"
            class="conversation-search"
            aria-label={t("chat.findConversation")}
            placeholder={t("chat.findConversation")}
            value={query}
            onInput={(event) => setQuery((event.target as HTMLInputElement).value)}
            onKeyDown={(event) => {
              if (event.key === "Escape" && query !== "") {
                event.stopPropagation();
                setQuery("");
              }
            }}
          />
        ) : null}
        {found.length === 0 && query.trim() !== "" ? <p class="muted">{t("chat.noConversationFound", { query: query.trim() })}</p> : null}
        <ConversationList conversations={found} activeId={draft ? undefined : currentId} onSelect={select} language={language} scroller={column} />
        {view.queued_actions > 0 ? <p class="muted queued">{t("chat.queued", { count: view.queued_actions })}</p> : null}
      </aside>
      {draft ? (
        <NewConversation onSend={startWith} disabled={starting} />
      ) : conversationView === null ? (
        <div class="empty-chat">
          <h1>{t("chat.welcome")}</h1>
          <p>{t("chat.welcomeHint")}</p>
        </div>
      ) : (
        conversationView
      )}
    </div>
  );
}

/**
 * The least time between two renders of the list for the Runtime's changes, ms. A start that follows a thousand
 * conversations changes their summaries a thousand times in a second or two (each subscribed, each agent's
 * presence); the list shows the latest at most this often. A change after a quiet moment is shown at once.
 */
const LIST_RENDER_INTERVAL_MS = 50;

/** Calls `render` for each change of the view the chat shows, at most once per LIST_RENDER_INTERVAL_MS; returns the unsubscribe. */
function followView(sdk: LineUpAppRuntimeSDK, render: () => void): () => void {
  let last = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const now = () => performance.now();
  const fire = () => {
    timer = undefined;
    last = now();
    render();
  };
  render();
  const off = sdk.state.subscribe((_next, change) => {
    // A render is due already: what changed is not even looked at (the render reads the view as it is then).
    if (timer !== undefined || !(change.lifecycle || change.actions || change.conversations)) return;
    const wait = last + LIST_RENDER_INTERVAL_MS - now();
    if (wait <= 0) fire();
    else timer = setTimeout(fire, wait);
  });
  return () => {
    off();
    clearTimeout(timer);
  };
}

/** With this many conversations, the list offers to find one by its title. */
const FIND_FROM = 8;

/** The conversations whose title (as the list shows it) holds `query`, whatever the case; all when it is blank. */
function conversationsCalled(conversations: readonly ConversationSummary[], query: string): readonly ConversationSummary[] {
  const wanted = query.trim().toLocaleLowerCase();
  return wanted === "" ? conversations : conversations.filter((c) => conversationLabel(c).toLocaleLowerCase().includes(wanted));
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
