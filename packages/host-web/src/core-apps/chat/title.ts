/**
 * A conversation's title, from the first thing the person said in it: its words on one line, cut at a word
 * boundary to fit the conversation list. Named this way, a list of conversations reads as what each is about.
 */
import { t } from "../../i18n/index.js";

export const MAX_TITLE_LENGTH = 48;

export function conversationTitle(text: string): string {
  const words = text.replace(/\s+/g, " ").trim();
  if (words === "") return t("chat.newConversation");
  if (words.length <= MAX_TITLE_LENGTH) return words;
  const cut = words.slice(0, MAX_TITLE_LENGTH - 1);
  const space = cut.lastIndexOf(" ");
  // A last word longer than half the title is cut inside it rather than dropped whole.
  return `${(space > MAX_TITLE_LENGTH / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:!?-]+$/, "")}…`;
}
