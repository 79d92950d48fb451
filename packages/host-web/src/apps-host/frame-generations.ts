/**
 * Which page an instance's frame holds, across app versions. A frame shows the version that was active when
 * it loaded; when another version becomes active the frame gets a new generation (its key changes, so it is
 * replaced by a page of the new version for the same instance) — but not while a tool call or an activation
 * is on the instance: replacing the page then would cut the call, so the frame keeps its page until the
 * instance is idle and is replaced then.
 */

interface Frame {
  version: string;
  generation: number;
}

export interface FrameGenerations {
  /** The frame's generation and the version its page shows, given the app's active version now. */
  frameOf(instanceId: string, activeVersion: string, busy: boolean): { readonly generation: number; readonly version: string };
  /** Forgets the frames of instances no longer listed. */
  keepOnly(instanceIds: ReadonlySet<string>): void;
}

export function createFrameGenerations(): FrameGenerations {
  const frames = new Map<string, Frame>();
  return {
    frameOf(instanceId, activeVersion, busy) {
      let frame = frames.get(instanceId);
      if (frame === undefined) {
        frame = { version: activeVersion, generation: 0 };
        frames.set(instanceId, frame);
      } else if (activeVersion !== frame.version) {
        // "" is a version not known when the frame mounted (the app was installed in the same moment): that
        // frame already loaded the active one, so it is the same frame.
        if (frame.version === "") frame.version = activeVersion;
        else if (!busy) {
          frame.generation++;
          frame.version = activeVersion;
        }
      }
      return { generation: frame.generation, version: frame.version };
    },
    keepOnly(instanceIds) {
      for (const id of frames.keys()) if (!instanceIds.has(id)) frames.delete(id);
    },
  };
}
