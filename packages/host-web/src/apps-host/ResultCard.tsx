/**
 * The static result card of spec 6.3: once an installed app's work for a tool call is done, the chat
 * timeline shows the app in its `inline_card` display mode over the session data frozen when the result
 * was recorded. The card is a sandboxed surface like any other, but it is not an instance: it answers
 * only `session_data.get` / `subscribe` (with the frozen snapshot); everything else, a write included,
 * is refused — the card never changes, whatever the live app does later. A card whose surface dies (left its
 * page, stopped responding) is taken down and says so: a hung frame left in place would keep its renderer
 * process, which every app frame of the host shares, hung for whatever opens next.
 */
import { createContext } from "preact";
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { projectManifest, type BridgeHostSnapshot, type BridgeMethodName } from "@lineup/protocol";
import type { LineUpRuntime, ResultCard } from "@lineup/runtime";
import type { MountedSurface } from "../surface-host/mount-surface.js";
import { currentTheme } from "../surface-host/theme-tokens.js";
import { appLocale, hostTimeZone } from "./locale.js";
import { t } from "../i18n/index.js";
import { localizedAppName } from "../i18n/app-text.js";

/** Provided by the shell; the chat's timeline asks it for a card per finished tool call. */
export const ResultCardContext = createContext<LineUpRuntime | undefined>(undefined);

export function ToolResultCard({ callId }: { callId: string }) {
  const runtime = useContext(ResultCardContext);
  const [card, setCard] = useState<ResultCard | undefined>(undefined);
  const [deadNote, setDeadNote] = useState<string | undefined>(undefined);
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (runtime === undefined) return;
    let live = true;
    // The card is written just after the result commits: look again briefly if it is not there yet.
    const look = (attempt: number) => {
      void runtime
        .appPort("chat")
        .resultCard(callId)
        .then((found) => {
          if (!live) return;
          if (found !== undefined) setCard(found);
          else if (attempt < 5) setTimeout(() => look(attempt + 1), 200 * (attempt + 1));
        })
        .catch(() => undefined);
    };
    look(0);
    return () => {
      live = false;
    };
  }, [runtime, callId]);

  useEffect(() => {
    if (runtime === undefined || card === undefined || container.current === null) return;
    let surface: MountedSurface | undefined;
    let gone = false;
    // The surface host is a chunk of its own (an app's frame fetches it too), not in the host's first script.
    void Promise.all([runtime.instances.appEntry(card.app_scope, card.entrypoint, card.app_version), import("../surface-host/mount-surface.js")]).then(
      ([entry, { mountSurface }]) => {
        if (gone || container.current === null) return;
        const snapshot = {
          app_scope: card.app_scope,
          app_version: entry.manifest.version,
          instance_id: `card-${card.call_id}`.slice(0, 128),
          entrypoint: card.entrypoint,
          route: "/",
          runtime_origin: "null",
          scope: { conversation_id: card.conversation_id },
          theme: currentTheme(),
          locale: appLocale(),
          timezone: hostTimeZone(),
          workspace: {},
          display_mode: "inline_card",
          capabilities: [],
          granted_permissions: [],
          sdk: { api_version: "1", features: entry.manifest.runtime_sdk.required_features },
        } as unknown as BridgeHostSnapshot;
        surface = mountSurface(container.current, entry.html, snapshot, {
          request(method: BridgeMethodName): Promise<unknown> {
            if (method === "session_data.get" || method === "session_data.subscribe") return Promise.resolve(card.data);
            if (method === "session_data.unsubscribe") return Promise.resolve({});
            return Promise.reject({ code: "invalid_state", message: "a result card is a static record of finished work" });
          },
        }, { title: t("resultCard.title", { name: localizedAppName(projectManifest(entry.manifest)) ?? card.app_scope }), name: localizedAppName(projectManifest(entry.manifest)) ?? card.app_scope, maxHeight: 480 });
        const mounted = surface;
        void mounted.dead.then((death) => {
          if (gone) return;
          void mounted.close(1).catch(() => undefined);
          setDeadNote(t("resultCard.dead", { reason: death.message }));
        });
      },
      () => undefined,
    );
    return () => {
      gone = true;
      void surface?.close(1).catch(() => undefined);
    };
  }, [runtime, card]);

  if (card === undefined) return null;
  return (
    <>
      <div class="result-card" data-call={card.call_id} data-app={card.app_scope} ref={container} />
      {deadNote === undefined ? null : <p class="result-card-gone">{deadNote}</p>}
    </>
  );
}
