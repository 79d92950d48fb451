/**
 * Artifacts (spec 6.2 `artifacts`): files an app creates — a whiteboard's PNG export, a recording —
 * stored by the Runtime and, when they belong to a conversation, shared with it. The bytes and their
 * record are written in the commit that accepts them; the upload to the App Server (`artifact/put`,
 * in chunks, each with its idempotency key) goes through the outbox in order, so an artifact created
 * offline reaches the agent after reconnect, and the server checks the SHA-256 on the last chunk.
 * The shell hashes the bytes before posting (the transition never awaits).
 */
import { appProvenance } from "../../app-lifecycle/manager/records.js";
import { bytesToBase64, DEFAULT_SERVER_LIMITS, LineUpError, RUNTIME_SCOPE, type ArtifactRef, type JsonValue } from "@lineup/protocol";
import { toTimestamp } from "../../core/ports.js";
import { conversationArtifactWrite } from "../../persistence/conversation-artifacts.js";
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import { Step } from "../step.js";
import type { StoreWrite } from "../../persistence/store.js";
import { memoReadKey, readId, unchanged, type ReadKey, type Reads, type RuntimeInput, type TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";

/** The largest artifact an app may create: the Surface Bridge's read limit. */
export const MAX_ARTIFACT_BYTES = 16 * 1024 * 1024;

/** What the Runtime keeps about an artifact besides its bytes. */
export interface StoredArtifact {
  readonly artifact: ArtifactRef;
  /** The app that created it; `runtime` for a conversation's artifact read from the AppServer and kept. */
  readonly app_scope: string;
  readonly conversation_id?: string;
  readonly created_at: string;
}

/** 1–255 characters, no slashes, no control characters. */
function isArtifactName(name: string): boolean {
  if (name.length < 1 || name.length > 255) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x2f || c === 0x5c) return false;
  }
  return true;
}
const MIME = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/** The read an `artifact.create` with a chosen id needs: whether it was made already. */
export function artifactCreateReads(input: Extract<RuntimeInput, { kind: "artifact.create" }>): ReadKey[] {
  return input.artifact_id === undefined ? [] : [memoReadKey(C.artifacts, input.artifact_id)];
}

export function onArtifactCreate(state: RuntimeState, input: Extract<RuntimeInput, { kind: "artifact.create" }>, reads: Reads, env: TransitionEnv): TransitionResult {
  // A chosen id already made (a workflow step run again after a restart): the artifact it made, not a second one.
  if (input.artifact_id !== undefined) {
    const made = reads.get(readId(memoReadKey(C.artifacts, input.artifact_id))) as unknown as StoredArtifact | undefined;
    if (made !== undefined) {
      if (made.app_scope !== input.app_scope || made.artifact.sha256 !== input.sha256) return unchanged(state, { error: new LineUpError("idempotency_conflict", `artifact ${input.artifact_id} was made with other content`, { path: "/artifact_id" }) });
      return unchanged(state, { reply: made.artifact as unknown as JsonValue });
    }
  }
  const step = new Step(state);
  const refuse = (code: ConstructorParameters<typeof LineUpError>[0], message: string, path: string) => step.result({ error: new LineUpError(code, message, { path }) });
  if (!isArtifactName(input.name)) return refuse("invalid_params", "an artifact name is 1–255 characters, without slashes or control characters", "/name");
  if (!MIME.test(input.mime_type) || input.mime_type.length > 127) return refuse("invalid_params", "mime_type must look like type/subtype", "/mime_type");
  if (input.bytes.byteLength > MAX_ARTIFACT_BYTES) return refuse("quota_exceeded", `an artifact is at most ${MAX_ARTIFACT_BYTES} bytes`, "/content");
  const conversation = input.conversation_id === undefined ? undefined : state.conversations.get(input.conversation_id);
  if (input.conversation_id !== undefined && conversation === undefined) return refuse("conversation_unknown", `no conversation ${input.conversation_id}`, "/conversation_id");

  const artifact: ArtifactRef = { artifact_id: input.artifact_id ?? env.newId("art"), name: input.name, mime_type: input.mime_type, size: input.bytes.byteLength, sha256: input.sha256 } as ArtifactRef;
  const record: StoredArtifact = {
    artifact,
    app_scope: input.app_scope,
    ...(input.conversation_id === undefined ? {} : { conversation_id: input.conversation_id }),
    created_at: toTimestamp(env.now()),
  };
  step.writes.push(
    { op: "put", collection: C.artifacts, key: artifact.artifact_id, value: record as unknown as JsonValue },
    { op: "put", collection: C.artifactData, key: artifact.artifact_id, value: input.bytes },
  );
  step.audit.push({ type: "artifact.created", subject: artifact.artifact_id, ...(input.conversation_id === undefined ? {} : { conversation_id: input.conversation_id }), detail: `${input.app_scope}: ${artifact.mime_type}, ${artifact.size} bytes` });

  if (conversation !== undefined) {
    // Listed with the conversation's artifacts at once; its `artifact.added` adds the seq once uploaded.
    step.writes.push(conversationArtifactWrite({ artifact, conversation_id: conversation.conversation_id, added_by: "device", added_at: record.created_at }));
    // Shared with the conversation: uploaded in order, one chunk per request, the last one completing it.
    const chunk = DEFAULT_SERVER_LIMITS.max_chunk_bytes;
    // Who made it travels with every chunk (the same each time): evidence names the app, its version and bundle.
    const provenance = appProvenance(state.apps, input.app_scope);
    for (let offset = 0; offset < Math.max(1, input.bytes.byteLength); offset += chunk) {
      const part = input.bytes.subarray(offset, Math.min(input.bytes.byteLength, offset + chunk));
      step.enqueue(env, {
        conversation_id: conversation.conversation_id,
        app_scope: input.app_scope,
        action_type: "artifact.share",
        method: "artifact/put",
        params: {
          session_id: conversation.conversation_id,
          artifact_id: artifact.artifact_id,
          name: artifact.name,
          mime_type: artifact.mime_type,
          size: artifact.size,
          sha256: artifact.sha256,
          offset,
          data: bytesToBase64(part),
          ...(provenance === undefined ? {} : { provenance: provenance as unknown as JsonValue }),
        },
      });
    }
  }
  return step.result({ reply: artifact as unknown as JsonValue });
}

/** Bytes of kept conversation artifacts by default (`TransitionEnv.keptArtifactBytes`). */
export const KEPT_ARTIFACT_BYTES = 256 * 1024 * 1024;

/** `meta/kept-artifacts`: the artifacts `artifact.cache` kept, oldest first, with their sizes. */
const KEPT_KEY = "kept-artifacts";
type Kept = { readonly entries: readonly (readonly [string, number])[] };

function keptOf(value: unknown): Kept {
  const entries = (value as Partial<Kept> | undefined)?.entries;
  return { entries: Array.isArray(entries) ? entries.filter((e): e is [string, number] => Array.isArray(e) && typeof e[0] === "string" && typeof e[1] === "number") : [] };
}

export function artifactCacheReads(input: Extract<RuntimeInput, { kind: "artifact.cache" }>): ReadKey[] {
  return [memoReadKey(C.artifacts, input.artifact.artifact_id), KEPT_READ];
}
const KEPT_READ = memoReadKey(C.meta, KEPT_KEY);

/**
 * Keeps a conversation's artifact that was read whole from the AppServer (the shell checked its SHA-256):
 * later reads and saves need no connection. An artifact already stored here (made on this device, or
 * kept before) is left as it is. What is kept is bounded (`keptArtifactBytes`): the longest kept are let
 * go first — they stay listed, and are read from the AppServer again when needed; one larger than the
 * whole bound is not kept.
 */
export function onArtifactCache(state: RuntimeState, input: Extract<RuntimeInput, { kind: "artifact.cache" }>, reads: Reads, env: TransitionEnv): TransitionResult {
  const { artifact, conversation_id, bytes } = input;
  if (reads.get(readId(artifactCacheReads(input)[0]!)) !== undefined) return unchanged(state);
  const bound = env.keptArtifactBytes ?? KEPT_ARTIFACT_BYTES;
  if (!state.conversations.has(conversation_id) || bytes.byteLength !== artifact.size || bytes.byteLength > MAX_ARTIFACT_BYTES || bytes.byteLength > bound) return unchanged(state);
  const entries = [...keptOf(reads.get(readId(KEPT_READ))).entries];
  let total = entries.reduce((sum, [, size]) => sum + size, 0);
  const writes: StoreWrite[] = [];
  let released = 0;
  while (entries.length > 0 && total + bytes.byteLength > bound) {
    const [id, size] = entries.shift()!;
    total -= size;
    released += 1;
    writes.push({ op: "delete", collection: C.artifacts, key: id }, { op: "delete", collection: C.artifactData, key: id });
  }
  entries.push([artifact.artifact_id, bytes.byteLength]);
  const record: StoredArtifact = { artifact, app_scope: RUNTIME_SCOPE, conversation_id, created_at: toTimestamp(env.now()) };
  writes.push(
    { op: "put", collection: C.artifacts, key: artifact.artifact_id, value: record as unknown as JsonValue },
    { op: "put", collection: C.artifactData, key: artifact.artifact_id, value: bytes },
    { op: "put", collection: C.meta, key: KEPT_KEY, value: { entries } as unknown as JsonValue },
  );
  const letGo = released === 0 ? "" : `; ${released} kept before let go (at most ${bound} bytes kept)`;
  return {
    state,
    writes,
    effects: [],
    deliveries: [],
    audit: [{ type: "artifact.kept", subject: artifact.artifact_id, conversation_id, detail: `read from the AppServer: ${artifact.mime_type}, ${artifact.size} bytes${letGo}` }],
  };
}

/**
 * `meta/release-artifacts/<app_scope>`: written with an app's removal, deleted once the artifacts it kept
 * to itself are released, so a start after a crash between the two finds the apps to release without
 * reading every artifact record.
 */
export const RELEASE_MARKER_PREFIX = "release-artifacts/";
export const releaseMarkerKey = (appScope: string): string => `${RELEASE_MARKER_PREFIX}${appScope}`;

export function artifactsReleaseReads(input: Extract<RuntimeInput, { kind: "artifacts.release" }>): ReadKey[] {
  return input.artifact_ids.map((id) => memoReadKey(C.artifacts, id));
}

/**
 * Deletes the artifacts an app kept to itself once the app is gone (removed, or removed before a crash).
 * Only those still recorded as that app's and shared with no conversation: a conversation's artifact
 * stays the conversation's, whoever made it.
 */
export function onArtifactsRelease(state: RuntimeState, input: Extract<RuntimeInput, { kind: "artifacts.release" }>, reads: Reads): TransitionResult {
  const done: StoreWrite[] = input.last ? [{ op: "delete", collection: C.meta, key: releaseMarkerKey(input.app_scope) }] : [];
  // Installed again meanwhile: what is recorded as its own is its own again.
  if (Object.hasOwn(state.apps.apps, input.app_scope)) return unchanged(state, { writes: done });
  const writes: StoreWrite[] = [];
  for (const id of input.artifact_ids) {
    const stored = reads.get(readId(memoReadKey(C.artifacts, id))) as unknown as StoredArtifact | undefined;
    if (stored === undefined || stored.app_scope !== input.app_scope || stored.conversation_id !== undefined) continue;
    writes.push({ op: "delete", collection: C.artifacts, key: id }, { op: "delete", collection: C.artifactData, key: id });
  }
  if (writes.length === 0) return unchanged(state, { writes: done });
  return { state, writes: [...writes, ...done], effects: [], deliveries: [], audit: [{ type: "artifact.deleted", subject: input.app_scope, detail: `${writes.length / 2} artifacts ${input.app_scope} kept to itself, with the app` }] };
}
