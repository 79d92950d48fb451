/**
 * The adapter context of a legacy golden fixture. A fixture may carry a `context` in wire
 * spelling; when it does, that context replaces the default entirely (so a case can show what
 * happens with no current conversation, no clock or no alias table).
 */
import type { LegacyContext } from "@lineup/protocol";
import type { Fixture } from "./fixture-decoders.js";

export interface LegacyFixtureContext {
  readonly current_conversation_id?: string;
  readonly known_app_scopes?: readonly string[];
  readonly app_id_aliases?: Readonly<Record<string, string>>;
  /** The fixed instant the clock returns. */
  readonly now?: string;
}

export const DEFAULT_LEGACY_FIXTURE_CONTEXT: LegacyFixtureContext = {
  current_conversation_id: "conv-1",
  known_app_scopes: ["chat", "whiteboard", "draw-and-guess", "voice"],
  app_id_aliases: { "com.lineup.whiteboard": "whiteboard", "com.lineup.draw-and-guess": "draw-and-guess" },
  now: "2026-08-06T08:30:00.000Z",
};

export function toLegacyContext(c: LegacyFixtureContext): LegacyContext {
  const now = c.now;
  return {
    ...(c.current_conversation_id === undefined ? {} : { currentConversationId: c.current_conversation_id }),
    ...(c.known_app_scopes === undefined ? {} : { knownAppScopes: new Set(c.known_app_scopes) }),
    ...(c.app_id_aliases === undefined ? {} : { appIdAliases: c.app_id_aliases }),
    ...(now === undefined ? {} : { now: () => now }),
  };
}

export function legacyContextOf(f: Fixture): LegacyContext {
  return toLegacyContext((f["context"] as LegacyFixtureContext | undefined) ?? DEFAULT_LEGACY_FIXTURE_CONTEXT);
}
