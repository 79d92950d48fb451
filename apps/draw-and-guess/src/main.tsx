/**
 * Draw and Guess's entry: connect to the Runtime over the Surface Bridge, load the game from session
 * data, serve the agent tools, render, then say `ready`. Opened outside LineUp (no host hands over a
 * port), it runs on local memory so the person can still draw and press "New word".
 */
import { render } from "preact";
import { connectSurface, LocalSessionData, type Surface } from "@lineup/surface-sdk";
import { drawingPng } from "./render.js";
import { provideGame } from "./service.js";
import { GameStore } from "./store.js";
import { tools } from "./tools.js";
import { App, type DisplayMode } from "./ui/App.js";
import "./ui/styles.css";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** `crypto.getRandomValues` works in an opaque-origin sandbox, where `crypto.randomUUID` may be missing. */
function newRoundId(): string {
  const bytes = new Uint8Array(10);
  crypto.getRandomValues(bytes);
  let id = "r-";
  for (const b of bytes) id += ALPHABET[b % ALPHABET.length];
  return id;
}

function random(): number {
  const word = new Uint32Array(1);
  crypto.getRandomValues(word);
  return word[0]! / 2 ** 32;
}

async function start(): Promise<void> {
  const root = document.getElementById("app");
  if (root === null) return;
  // No host hands over a port when the page is opened outside LineUp.
  const surface: Surface | undefined = await connectSurface({ tools }).catch(() => undefined);
  const store = new GameStore({
    sessionData: surface?.sessionData ?? new LocalSessionData(),
    newRoundId,
    random,
    onError: (error) => console.error("draw-and-guess: the game could not be saved", error),
  });
  await store.load();
  provideGame({ store, drawingPng });
  if (surface === undefined) {
    render(<App store={store} standalone locale={navigator.language} />, root);
    return;
  }
  render(
    <App
      store={store}
      displayMode={(surface.app.display_mode ?? "foreground") as DisplayMode}
      onDisplayModeChange={(listener) => surface.followDisplayMode((mode) => listener(mode as DisplayMode))}
      locale={surface.app.locale}
      onLocaleChange={surface.followLocale}
    />,
    root,
  );
  surface.lifecycle.on("closing", async () => {
    await store.flush();
    store.dispose();
  });
  await surface.lifecycle.ready();
}

void start();
