/**
 * The shell's recording indicator: while the host records from the microphone for an app, a small bar
 * says which app records and for how long, with Stop (end now and keep the audio — the app gets the
 * recording) and Discard (end now and drop it — the app hears `cancelled_by_user`). It renders the
 * shell's store of live recordings (`recordings.ts`) and nothing when none runs.
 */
import { useEffect, useState } from "preact/hooks";
import { elapsedMs, formatElapsed, type LiveRecording, type RecordingStore } from "./recordings.js";
import "./recording-indicator.css";
import { t } from "../i18n/index.js";

/** How often the elapsed time is redrawn. */
const TICK_MS = 250;

export function RecordingIndicator({ recordings }: { recordings: RecordingStore }) {
  const [live, setLive] = useState<readonly LiveRecording[]>(() => recordings.list());
  const [now, setNow] = useState(() => recordings.now());
  useEffect(() => {
    setLive(recordings.list());
    return recordings.subscribe((list) => {
      setNow(recordings.now());
      setLive(list);
    });
  }, [recordings]);
  const running = live.length > 0;
  useEffect(() => {
    if (!running) return;
    const tick = setInterval(() => setNow(recordings.now()), TICK_MS);
    return () => clearInterval(tick);
  }, [running, recordings]);

  if (!running) return null;
  return (
    <div class="recording-indicator" role="region" aria-label={t("recording.region")}>
      {live.map((recording) => (
        <div key={recording.request_id} class="recording-indicator-item" role="group" aria-label={t("recording.for", { app: recording.app_name })} data-request={recording.request_id}>
          <span class="recording-indicator-dot" aria-hidden="true" />
          <span class="recording-indicator-text">
            {t("recording.forLead")}
            <strong>{recording.app_name}</strong>
          </span>
          <span class="recording-indicator-time" role="timer" aria-label={t("recording.elapsed")}>
            {formatElapsed(elapsedMs(recording, now))}
            <span class="recording-indicator-limit"> / {formatElapsed(recording.max_ms)}</span>
          </span>
          <button type="button" class="primary" onClick={() => recordings.stop(recording.request_id)} title={t("recording.stopTitle")}>
            {t("recording.stop")}
          </button>
          <button type="button" class="secondary" onClick={() => recordings.discard(recording.request_id)} title={t("recording.discardTitle")}>
            {t("recording.discard")}
          </button>
        </div>
      ))}
    </div>
  );
}
