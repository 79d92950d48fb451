/**
 * The whiteboard app's entry: connect to the Runtime over the Surface Bridge, load the board from
 * session data, serve the agent tools, render, then say `ready`. On `closing` the last changes are
 * written before the deadline. Opened outside LineUp (no host hands over a port), it runs on local
 * memory so the page can still be tried.
 */
import { render } from "preact";
import { AGENT_TASK_FEATURE } from "@lineup/protocol";
import { connectSurface, LocalSessionData, type Surface } from "@lineup/surface-sdk";
import { browserCanvasFactory } from "./browser-canvas.js";
import { newItemId } from "./ids.js";
import { exportBoardPngWithin } from "./model/export-png.js";
import { provideService } from "./service.js";
import { BoardStore } from "./store.js";
import { BoardSync, type SyncStatus } from "./sync.js";
import { TidyTask } from "./tidy-task.js";
import { tools } from "./tools.js";
import { focusOf, type FocusTarget } from "./view-patch.js";
import { App, type DisplayMode } from "./ui/App.js";
import "./ui/styles.css";

/** A bridge message is at most 256 KiB; the PNG's base64 must fit beside the frame. */
const MAX_ARTIFACT_BASE64 = 240_000;

async function start(): Promise<void> {
  const root = document.getElementById("app");
  if (root === null) return;
  // No host hands over a port when the page is opened outside LineUp.
  const surface: Surface | undefined = await connectSurface({ tools }).catch(() => undefined);

  // The sync reports to the store, which is built on the sync: wired once both exist.
  let notify: (status?: SyncStatus) => void = () => {};
  const sync = new BoardSync({
    sessionData: surface?.sessionData ?? new LocalSessionData(),
    onBoard: () => notify(),
    onStatus: (status) => notify(status),
  });
  const store = new BoardStore(sync, newItemId);
  notify = (status) => store.notify(status);
  await sync.start();
  store.notify(sync.status);

  const live = surface;
  provideService({
    store,
    exportPng: async (options) => {
      if (live === undefined) throw new Error("not connected to LineUp");
      const png = await exportBoardPngWithin(store.board, browserCanvasFactory, MAX_ARTIFACT_BASE64, options);
      const name = `${store.board.title.replace(/[^\p{L}\p{N} _-]+/gu, "").trim().slice(0, 80) || "board"}.png`;
      const artifact = await live.artifacts.create({ name, mime_type: "image/png", content: { encoding: "base64", data: png.base64 } });
      return { artifact, width: png.width, height: png.height };
    },
  });

  // The agent's state patches (spec 5.4) move the view; each is acknowledged once applied (or found unusable).
  const focusListeners = new Set<(target: FocusTarget) => void>();
  live?.agentMessages.onStatePatch((patch) => {
    const target = focusOf(patch.patch);
    if (target !== undefined) for (const listener of focusListeners) listener(target);
    live.agentMessages.ack(patch.message_id).catch((error: unknown) => console.error("whiteboard: a state patch was not acknowledged", error));
  });

  // Tidying needs a host that runs agent tasks (an optional feature, negotiated): without one there is no button.
  const tidy =
    live !== undefined && live.app.sdk.features.includes(AGENT_TASK_FEATURE)
      ? new TidyTask({ startTask: (request) => live.agent.startTask(request), tasks: () => live.agent.tasks(), task: (taskId) => live.agent.task(taskId) })
      : undefined;

  const mode = (surface?.app.display_mode ?? "foreground") as DisplayMode;
  render(
    <App
      store={store}
      displayMode={mode}
      standalone={surface === undefined}
      locale={surface?.app.locale ?? navigator.language}
      {...(tidy === undefined ? {} : { tidy })}
      {...(live === undefined
        ? {}
        : {
            onDisplayModeChange: (l: (m: DisplayMode) => void) => live.followDisplayMode((m) => l(m as DisplayMode)),
            onLocaleChange: live.followLocale,
            onFocusRequest: (l: (target: FocusTarget) => void) => {
              focusListeners.add(l);
              return () => void focusListeners.delete(l);
            },
            onThemeChange: (l: () => void) => {
              const off = live.onThemeChange(() => l());
              l(); // a theme pushed before the subscription is painted too
              return off;
            },
          })}
    />,
    root,
  );
  if (live === undefined) return;

  // Cards in the chat size to their content; other modes fill the frame the host gives them.
  let stopResize: (() => void) | undefined;
  const followMode = (m: DisplayMode): void => {
    document.documentElement.dataset["displayMode"] = m;
    stopResize?.();
    stopResize = m === "inline_card" ? live.surface.autoResize() : undefined;
  };
  followMode(mode);
  live.onDisplayModeChange((m) => {
    followMode(m);
    // Out of the foreground the user cannot draw: store what is pending now rather than after the debounce.
    if (m !== "foreground") void store.flush();
  });
  live.lifecycle.on("closing", () => store.flush());
  live.lifecycle.on("background", () => void store.flush());
  await live.lifecycle.ready();
  // A tidy task that was running or waiting for the person's decision when the page went away shows again.
  await tidy?.restore();
}

void start();
