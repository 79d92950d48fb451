/**
 * Voice Notes' entry: connect to the Runtime over the Surface Bridge, load the notes from session data,
 * serve the agent tool, render, then say `ready`. Opened outside LineUp (no host hands over a port), it
 * shows the notes screen with recording unavailable.
 */
import { render } from "preact";
import { capabilityRefused, LineUpError } from "@lineup/protocol";
import { connectSurface, LocalSessionData, type Surface } from "@lineup/surface-sdk";
import { VoiceNotes } from "./notes.js";
import { NotePlayer } from "./playback.js";
import { provideNotes } from "./service.js";
import { tools } from "./tools.js";
import { App, type DisplayMode } from "./ui/App.js";
import "./ui/styles.css";

async function start(): Promise<void> {
  const root = document.getElementById("app");
  if (root === null) return;
  // A capability request lasts as long as the person's answer and the recording, far past the SDK's 30 s default.
  const surface: Surface | undefined = await connectSurface({ tools }).catch(() => undefined);
  const player = new NotePlayer();
  if (surface === undefined) {
    const outside = () => Promise.reject(new LineUpError("unsupported_on_host", "open Voice Notes in LineUp"));
    const offline = new VoiceNotes({
      sessionData: new LocalSessionData(),
      capabilities: { request: async () => capabilityRefused("unsupported_on_host", "open Voice Notes in LineUp to record") },
      artifacts: { create: outside, read: outside },
    });
    render(<App notes={offline} player={player} displayMode="foreground" locale={navigator.language} timeZone={undefined} standalone />, root);
    return;
  }
  const notes = new VoiceNotes({
    sessionData: surface.sessionData,
    capabilities: surface.capabilities,
    artifacts: surface.artifacts,
    events: surface.events,
    onError: (error) => console.error("voice: the notes could not be saved", error),
  });
  await notes.load();
  provideNotes(notes);
  render(
    <App
      notes={notes}
      player={player}
      displayMode={(surface.app.display_mode ?? "foreground") as DisplayMode}
      onDisplayModeChange={(listener) => surface.followDisplayMode((mode) => listener(mode as DisplayMode))}
      locale={surface.app.locale}
      onLocaleChange={surface.followLocale}
      timeZone={surface.app.timezone}
    />,
    root,
  );
  surface.lifecycle.on("closing", () => {
    player.dispose();
    notes.dispose();
  });
  await surface.lifecycle.ready();
}

void start();
