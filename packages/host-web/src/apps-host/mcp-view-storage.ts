/**
 * An MCP Apps view's `localStorage`, kept by the host (docs/security.md "MCP Apps views"): LineUp's frames have no
 * `allow-same-origin`, so the frame's own throws `SecurityError`; the frame page gives the view a Storage-like object
 * over the items the host hands it (`mountMcpView`'s `storage`) and sends each change back. `sessionDataStorage` keeps
 * them in the app's session data. No browser API here, so Node tests use it too.
 */
import { LineUpError } from "@lineup/protocol";
import type { AppSessionData } from "@lineup/runtime";

/** A view's `localStorage`, kept by the host. */
export interface McpViewStorage {
  readonly items: Readonly<Record<string, string>>;
  /** The view's whole set after a change. */
  save(items: Record<string, string>): void;
}

/** The most a view keeps in `localStorage`, in characters of its keys and values (the frame refuses more). */
export const MCP_VIEW_STORAGE_LIMIT = 512 * 1024;

/** Whether `value` is a set of storage items: an object of strings. */
export const isViewStorageItems = (value: unknown): value is Record<string, string> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string");
/** The characters of a set's keys and values, as the frame counts them. */
export const viewStorageSize = (items: Record<string, string>): number => Object.entries(items).reduce((n, [k, v]) => n + k.length + v.length, 0);

/**
 * A view's storage kept in its app's session data under `key` (an object of strings): read once to mount the view,
 * then each change written in order (a write that meets another writer's revision reads it and writes again once).
 * `saved` settles after the last change is written; `failed` hears a write the Runtime refused.
 */
export async function sessionDataStorage(sessionData: Pick<AppSessionData, "get" | "replace">, key: string, failed: (error: unknown) => void = () => undefined): Promise<McpViewStorage & { saved(): Promise<void> }> {
  const read = async () => {
    const current = await sessionData.get();
    if (!current.ok) throw new LineUpError(current.error.code, current.error.message);
    return current.value;
  };
  const stored = (await read()).data?.[key];
  let queue = Promise.resolve();
  const write = async (items: Record<string, string>, again: boolean): Promise<void> => {
    const current = await read();
    const written = await sessionData.replace({ data: { ...(current.data ?? {}), [key]: items }, expected_revision: current.revision });
    if (written.ok) return;
    if (again && written.error.code === "revision_conflict") return write(items, false);
    throw new LineUpError(written.error.code, written.error.message);
  };
  return {
    items: isViewStorageItems(stored) ? { ...stored } : {},
    save(items) {
      queue = queue.then(() => write(items, true)).catch(failed);
    },
    saved: () => queue,
  };
}
