/**
 * Playing a note in the sandbox. The app page's CSP (`default-src 'none'`, no `media-src`) refuses an
 * `<audio>` element any source, `blob:` and `data:` included, so the recording is decoded and played
 * with Web Audio, which the CSP does not govern. One note plays at a time; decoded notes are kept for
 * a replay (the last few).
 */

export interface AudioSource {
  readonly bytes: Uint8Array;
  readonly mime_type: string;
}

const KEEP_DECODED = 4;

export class NotePlayer {
  readonly #listeners = new Set<() => void>();
  readonly #decoded = new Map<string, AudioBuffer>();
  #context: AudioContext | undefined;
  #source: AudioBufferSourceNode | undefined;
  #playing: string | undefined;
  /** Bumped by every play and stop, so a slow load for an abandoned play does not start. */
  #generation = 0;

  /** The note playing (or loading to play), if any. */
  get playing(): string | undefined {
    return this.#playing;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Plays note `id` from the start (stopping any other); resolves once it has started, rejects when it cannot play. */
  async play(id: string, load: () => Promise<AudioSource>): Promise<void> {
    this.#halt();
    const generation = ++this.#generation;
    this.#set(id);
    try {
      // Created (or resumed) in the click's task, so the browser lets it sound.
      const context = (this.#context ??= new AudioContext());
      const resumed = context.resume();
      let buffer = this.#decoded.get(id);
      if (buffer === undefined) {
        const { bytes } = await load();
        buffer = await context.decodeAudioData(bytes.slice().buffer);
        this.#decoded.set(id, buffer);
        while (this.#decoded.size > KEEP_DECODED) this.#decoded.delete(this.#decoded.keys().next().value as string);
      }
      await resumed;
      if (generation !== this.#generation) return;
      const source = context.createBufferSource();
      source.buffer = buffer;
      source.connect(context.destination);
      source.addEventListener("ended", () => {
        if (this.#source !== source) return;
        this.#source = undefined;
        this.#set(undefined);
      });
      this.#source = source;
      source.start();
    } catch (error) {
      if (generation === this.#generation) this.#set(undefined);
      throw error;
    }
  }

  stop(): void {
    this.#generation++;
    this.#halt();
    this.#set(undefined);
  }

  dispose(): void {
    this.stop();
    void this.#context?.close().catch(() => undefined);
    this.#context = undefined;
  }

  #halt(): void {
    const source = this.#source;
    this.#source = undefined;
    if (source === undefined) return;
    try {
      source.stop();
    } catch {
      // Already stopped.
    }
    source.disconnect();
  }

  #set(id: string | undefined): void {
    if (this.#playing === id) return;
    this.#playing = id;
    for (const listener of [...this.#listeners]) listener();
  }
}
