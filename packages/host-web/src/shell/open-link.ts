/**
 * Deep links into the shell (spec 4.3's explicit target): `#/open/<app_scope>?conversation=…&entry=…`
 * opens an app, in a conversation and at an entrypoint when they are named. A notification's click uses the
 * same link, so both follow one path. Pure: parse and format only; the shell decides what opens.
 */
import { ENTRYPOINT_ID_PATTERN, isAppScope, isConversationId } from "@lineup/protocol";
import type { ExplicitStartupTarget } from "@lineup/runtime";
import { t } from "../i18n/index.js";

const PREFIX = "#/open/";
const entrypointRe = new RegExp(ENTRYPOINT_ID_PATTERN);

export type OpenLink =
  | { readonly ok: true; readonly target: ExplicitStartupTarget }
  /** A link that is meant for the shell but cannot be read; `reason` says why, in words for a notice. */
  | { readonly ok: false; readonly reason: string };

/** The link in `hash` (`location.hash`), or undefined when the hash is not an open link at all. */
export function parseOpenLink(hash: string): OpenLink | undefined {
  if (!hash.startsWith(PREFIX)) return undefined;
  const rest = hash.slice(PREFIX.length);
  const query = rest.indexOf("?");
  let appScope: string;
  try {
    appScope = decodeURIComponent(query < 0 ? rest : rest.slice(0, query));
  } catch {
    return { ok: false, reason: t("link.garbled") };
  }
  if (!isAppScope(appScope)) return { ok: false, reason: t("link.notAnApp", { name: appScope.slice(0, 64) }) };
  const params = new URLSearchParams(query < 0 ? "" : rest.slice(query + 1));
  const conversation = params.get("conversation") ?? undefined;
  const entry = params.get("entry") ?? undefined;
  if (conversation !== undefined && !isConversationId(conversation)) return { ok: false, reason: t("link.noConversation") };
  if (entry !== undefined && !entrypointRe.test(entry)) return { ok: false, reason: t("link.noPage") };
  return { ok: true, target: { app_scope: appScope, ...(conversation === undefined ? {} : { conversation_id: conversation }), ...(entry === undefined ? {} : { entrypoint: entry }) } };
}

/** The link that opens `target` (its instance id is not part of a link). */
export function formatOpenLink(target: Pick<ExplicitStartupTarget, "app_scope" | "conversation_id" | "entrypoint">): string {
  const params = new URLSearchParams();
  if (target.conversation_id !== undefined) params.set("conversation", target.conversation_id);
  if (target.entrypoint !== undefined) params.set("entry", target.entrypoint);
  const query = params.toString();
  return `${PREFIX}${encodeURIComponent(target.app_scope)}${query === "" ? "" : `?${query}`}`;
}
