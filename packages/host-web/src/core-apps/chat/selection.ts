/**
 * Which of the chat's conversations is on screen, remembered across reloads: the chat shows it, and the
 * shell's launcher opens apps in it ("this conversation"). Framework-free, so the shell reads it too.
 */
import { compareLastActivity } from "@lineup/protocol";
import type { ConversationSummary } from "@lineup/runtime";
import { t } from "../../i18n/index.js";

const SELECTED_KEY = "lineup.chat.selected";

/** The conversation the person last chose in the chat (or the launcher opened an app in), if remembered. */
export function rememberedConversation(): string | undefined {
  return globalThis.localStorage?.getItem(SELECTED_KEY) ?? undefined;
}

/** Remembers `conversationId` as the one the chat shows next. */
export function rememberConversation(conversationId: string): void {
  globalThis.localStorage?.setItem(SELECTED_KEY, conversationId);
}

/** The chat's conversations (those started in chat), the one where something was last said first (`compareLastActivity`). */
export function chatConversations(all: readonly ConversationSummary[]): readonly ConversationSummary[] {
  const chat = all.filter((c) => c.app_scope === "chat");
  // The Runtime keeps them oldest started first: reversed, those where nothing was said are in order already, and the
  // sort (stable, and quick on runs in order) moves the rest.
  chat.reverse();
  return chat.sort(compareLastActivity);
}

/** The conversation the chat shows: the selected one while it exists, else the first; undefined when there is none. */
export function shownConversation(conversations: readonly ConversationSummary[], selected: string | undefined): ConversationSummary | undefined {
  return conversations.find((c) => c.conversation_id === selected) ?? conversations[0];
}

/** A conversation's title for people. */
export function conversationLabel(conversation: Pick<ConversationSummary, "title" | "agent_id">): string {
  return conversation.title ?? t("chat.conversationWith", { agent: conversation.agent_id });
}
