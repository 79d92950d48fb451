/**
 * The pomodoro screen: what the session is for, the time left, a ring that fills as it goes, and a
 * stop button while it runs. Picture-in-picture shows the clock alone.
 */
import { useEffect, useState } from "preact/hooks";
import { formatClock, phaseAt, progressAt, remainingMs, type FocusSession } from "../model.js";
import type { TimerStore } from "../store.js";
import { pomodoroText } from "./text.js";

export type DisplayMode = "foreground" | "pip" | "inline_card";

export interface AppProps {
  readonly store: TimerStore;
  readonly displayMode: DisplayMode;
  readonly onDisplayModeChange?: (listener: (mode: DisplayMode) => void) => () => void;
  /** Shown when the page runs outside LineUp: nothing can start a session. */
  readonly standalone?: boolean;
  /** The language LineUp tells the app (BCP 47), and its changes; the words and the clock follow it. */
  readonly locale?: string;
  readonly onLocaleChange?: (listener: (locale: string) => void) => () => void;
}

const RING = 2 * Math.PI * 88;

export function App({ store, displayMode, onDisplayModeChange, standalone = false, locale: initialLocale = "en", onLocaleChange }: AppProps) {
  const [session, setSession] = useState<FocusSession | null>(store.session);
  const [now, setNow] = useState(store.now());
  const [mode, setMode] = useState(displayMode);
  const [stopping, setStopping] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [locale, setLocale] = useState(initialLocale);
  useEffect(() => onLocaleChange?.(setLocale), [onLocaleChange]);
  const text = pomodoroText(locale);

  useEffect(() => {
    const sync = () => {
      setNow(store.now());
      setSession(store.session);
    };
    const off = store.onChange(sync);
    // Effects run after the first paint: a call handled before that (the app had just said ready) changed the
    // store with nobody listening yet. Catch up once the listener is in place.
    sync();
    return off;
  }, [store]);
  useEffect(() => onDisplayModeChange?.(setMode), [onDisplayModeChange]);
  const phase = phaseAt(session, now);
  useEffect(() => {
    if (phase !== "running") return;
    const tick = setInterval(() => setNow(store.now()), 250);
    return () => clearInterval(tick);
  }, [phase, store]);

  const stop = () => {
    setStopping(true);
    setProblem(undefined);
    store
      .stop()
      .catch((error: unknown) => setProblem(text.couldNotStop(error instanceof Error ? error.message : String(error))))
      .finally(() => setStopping(false));
  };

  if (session === null) {
    return (
      <main class={`pomo pomo-${mode}`} aria-live="polite">
        <p class="pomo-idle-title">{text.idleTitle}</p>
        <p class="pomo-hint">{standalone ? text.standaloneHint : text.idleHint}</p>
      </main>
    );
  }

  const left = remainingMs(session, now);
  const done = progressAt(session, now);
  // Running, it says when the session ends, on the person's own clock (the title already names it).
  const status =
    phase === "running" ? text.endsAt(new Date(session.ends_at).toLocaleTimeString(locale, { hour: "numeric", minute: "2-digit" })) : phase === "done" ? text.timesUp : text.stoppedWithLeft(formatClock(left));
  return (
    <main class={`pomo pomo-${mode} pomo-${phase}`}>
      {mode !== "pip" && <h1 class="pomo-title">{session.title}</h1>}
      <div class="pomo-dial" role="timer" aria-label={text.left(formatClock(left))}>
        <svg viewBox="0 0 200 200" aria-hidden="true">
          <circle class="pomo-track" cx="100" cy="100" r="88" />
          <circle class="pomo-fill" cx="100" cy="100" r="88" stroke-dasharray={RING} stroke-dashoffset={RING * (1 - done)} transform="rotate(-90 100 100)" />
        </svg>
        <span class="pomo-clock">{formatClock(left)}</span>
      </div>
      <p class="pomo-status" aria-live="polite">
        {status}
      </p>
      {mode !== "pip" && phase === "running" && (
        <button type="button" class="pomo-stop" onClick={stop} disabled={stopping}>
          {stopping ? text.stopping : text.stop}
        </button>
      )}
      {mode !== "pip" && phase !== "running" && <p class="pomo-hint">{text.sessionHint(session.minutes)}</p>}
      {problem !== undefined && (
        <p class="pomo-problem" role="alert">
          {problem}
        </p>
      )}
    </main>
  );
}
