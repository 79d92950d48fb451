/**
 * The pomodoro's entry: connect to the Runtime over the Surface Bridge, load the session from session
 * data, serve the agent tool, render, then say `ready`. Opened outside LineUp (no host hands over a
 * port), it says where to use it.
 */
import { render } from "preact";
import { connectSurface, LocalSessionData, type Surface } from "@lineup/surface-sdk";
import { provideTimer } from "./service.js";
import { TimerStore } from "./store.js";
import { tools } from "./tools.js";
import { App, type DisplayMode } from "./ui/App.js";
import "./ui/styles.css";

async function start(): Promise<void> {
  const root = document.getElementById("app");
  if (root === null) return;
  // No host hands over a port when the page is opened outside LineUp.
  const surface: Surface | undefined = await connectSurface({ tools }).catch(() => undefined);
  if (surface === undefined) {
    const offline = new TimerStore({ sessionData: new LocalSessionData(), interrupt: async () => undefined });
    render(<App store={offline} displayMode="foreground" standalone locale={navigator.language} />, root);
    return;
  }
  const store = new TimerStore({
    sessionData: surface.sessionData,
    interrupt: (reason) => surface.operations.interrupt(reason),
    onError: (error) => console.error("pomodoro: the timer could not be saved", error),
  });
  await store.load();
  provideTimer(store);
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
  surface.lifecycle.on("closing", () => store.dispose());
  await surface.lifecycle.ready();
}

void start();
