/**
 * The Voice Notes screen: the agent's request (what it asks, Record / Not now) when one waits, what is
 * under way (LineUp records and shows its own Stop / Discard bar; then the app saves), "Record a note",
 * and the notes of this conversation, each playable. Picture-in-picture shows one line.
 */
import { useEffect, useState } from "preact/hooks";
import { formatDuration, type RecordingRequest, type VoiceNote } from "../model.js";
import type { Activity, VoiceNotes } from "../notes.js";
import type { NotePlayer } from "../playback.js";
import { voiceText } from "./text.js";

export type DisplayMode = "foreground" | "pip" | "inline_card";

export interface AppProps {
  readonly notes: VoiceNotes;
  readonly player: NotePlayer;
  readonly displayMode: DisplayMode;
  readonly onDisplayModeChange?: (listener: (mode: DisplayMode) => void) => () => void;
  readonly locale: string;
  /** The language LineUp tells the app changed: the words follow it. */
  readonly onLocaleChange?: (listener: (locale: string) => void) => () => void;
  /** IANA time zone for the notes' times; the browser's when undefined. */
  readonly timeZone: string | undefined;
  /** The page runs outside LineUp: nothing can be recorded. */
  readonly standalone?: boolean;
}

interface View {
  readonly notes: readonly VoiceNote[];
  readonly requests: readonly RecordingRequest[];
  readonly activity: Activity;
  readonly problem: string | undefined;
}

const viewOf = (notes: VoiceNotes): View => ({ notes: notes.notes, requests: notes.requests, activity: notes.activity, problem: notes.problem });

function timeFormat(locale: string, timeZone: string | undefined): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "medium", ...(timeZone === undefined ? {} : { timeZone }) });
  } catch {
    return new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "medium" });
  }
}

export function App({ notes, player, displayMode, onDisplayModeChange, locale, onLocaleChange, timeZone, standalone = false }: AppProps) {
  const [view, setView] = useState<View>(() => viewOf(notes));
  const [playing, setPlaying] = useState<string | undefined>(player.playing);
  const [mode, setMode] = useState(displayMode);
  const [playProblem, setPlayProblem] = useState<string | undefined>(undefined);
  // Effects run after the first paint: a change made before that (the agent's request, handled as the app said
  // ready) had nobody listening yet. Each subscription catches up once its listener is in place.
  useEffect(() => {
    const off = notes.onChange(() => setView(viewOf(notes)));
    setView(viewOf(notes));
    return off;
  }, [notes]);
  useEffect(() => {
    const off = player.onChange(() => setPlaying(player.playing));
    setPlaying(player.playing);
    return off;
  }, [player]);
  useEffect(() => onDisplayModeChange?.(setMode), [onDisplayModeChange]);
  const [format] = useState(() => timeFormat(locale, timeZone));
  const [language, setLanguage] = useState(locale);
  useEffect(() => onLocaleChange?.(setLanguage), [onLocaleChange]);
  const text = voiceText(language);

  const { activity, requests, problem } = view;
  const request = requests[0];
  const busy = activity.kind !== "idle";
  const label = (note: VoiceNote) => text.noteLabel(format.format(new Date(note.created_at)));
  const play = (note: VoiceNote) => {
    setPlayProblem(undefined);
    if (playing === note.id) return player.stop();
    player.play(note.id, () => notes.audio(note.id)).catch((error: unknown) => setPlayProblem(text.couldNotPlay(error instanceof Error ? error.message : String(error))));
  };

  if (mode === "pip") {
    const line =
      activity.kind === "recording" ? text.recording : activity.kind === "saving" ? text.savingShort : request !== undefined ? text.pipAsks : text.count(view.notes.length);
    // Newest first: the note the person just made.
    const latest = view.notes[0];
    return (
      <main class="voice voice-pip" aria-live="polite">
        <svg class="voice-pip-mic" viewBox="0 0 24 24" width="36" height="36" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round">
          <rect x="9" y="3" width="6" height="11" rx="3" />
          <path d="M5.5 11a6.5 6.5 0 0 0 13 0M12 17.5V21M8.5 21h7" />
        </svg>
        <span class="voice-pip-line">
          <span class={`voice-pip-dot${activity.kind === "recording" ? " voice-pip-live" : ""}`} aria-hidden="true" />
          <span>{line}</span>
        </span>
        {latest === undefined || activity.kind !== "idle" ? null : (
          <span class="voice-pip-latest">
            {text.latest(formatDuration(latest.duration_ms), format.format(new Date(latest.created_at)))}
          </span>
        )}
      </main>
    );
  }

  return (
    <main class="voice voice-foreground">
      <header class="voice-header">
        <h1>{text.title}</h1>
        <button type="button" class="voice-button" onClick={() => void notes.record()} disabled={busy || standalone}>
          {text.record}
        </button>
      </header>
      {standalone && <p class="voice-hint">{text.standaloneHint}</p>}

      {request !== undefined && (
        <section class="voice-request" role="region" aria-label={text.request}>
          <p class="voice-asks">
            {request.prompt === undefined ? (
              text.asksToRecord
            ) : (
              <>
                {text.asks}
                <q class="voice-prompt">{request.prompt}</q>
              </>
            )}
          </p>
          <p class="voice-limit">{text.limit(formatDuration(request.max_seconds * 1_000))}</p>
          {activity.kind !== "idle" && activity.call_id === request.call_id ? null : (
            <div class="voice-actions">
              <button type="button" class="voice-button voice-primary" onClick={() => void notes.record(request.call_id)} disabled={busy}>
                {text.recordNow}
              </button>
              <button type="button" class="voice-button" onClick={() => notes.decline(request.call_id)} disabled={busy}>
                {text.notNow}
              </button>
            </div>
          )}
          {requests.length > 1 && <p class="voice-hint">{text.moreWaiting(requests.length - 1)}</p>}
        </section>
      )}

      {activity.kind === "recording" && (
        <p class="voice-status" role="status">
          <span class="voice-live" aria-hidden="true" />
          {text.recordingHint}
        </p>
      )}
      {activity.kind === "saving" && (
        <p class="voice-status" role="status">
          {text.saving}
        </p>
      )}
      {problem !== undefined && (
        <p class="voice-problem" role="alert">
          {problem}
        </p>
      )}

      <section class="voice-notes" aria-label={text.notes}>
        <h2>{text.notesHeading}</h2>
        {view.notes.length === 0 ? (
          <p class="voice-hint">{text.noNotes}</p>
        ) : (
          <ul class="voice-list">
            {view.notes.map((note) => (
              <li key={note.id} class={`voice-note${playing === note.id ? " voice-note-playing" : ""}`} data-note={note.id}>
                <button type="button" class="voice-play" onClick={() => play(note)} aria-label={playing === note.id ? text.stop(label(note)) : text.play(label(note))}>
                  {playing === note.id ? "■" : "▶"}
                </button>
                <span class="voice-note-name">{label(note)}</span>
                <span class="voice-note-length">{formatDuration(note.duration_ms)}</span>
              </li>
            ))}
          </ul>
        )}
        {playProblem !== undefined && (
          <p class="voice-problem" role="alert">
            {playProblem}
          </p>
        )}
      </section>
    </main>
  );
}
