/**
 * What an app may do with artifacts (spec 6.3 "Artifact: Runtime 管理元数据、受限读取、创建、会话引用、
 * 下载和用户保存"), beside `artifact.create` (a loop input): read an artifact's metadata and bytes,
 * list a conversation's artifacts (or the app's own), and save one to the user's files through the host.
 *
 * An app sees the artifacts it made, and those of a conversation it names (the SDK names the bound
 * instance's; the Surface Bridge always the instance's own). An artifact this device does not hold — the
 * agent's, another device's — is read from the AppServer, checked against its SHA-256, and kept here
 * (`artifact.cache`), so it reads and saves again without a connection.
 */
import { bytesToBase64, LineUpError, RUNTIME_SCOPE, safeFileName, type ArtifactRef, type CapabilityResult } from "@lineup/protocol";
import type { AppCapabilityRequest } from "../capabilities/shell.js";
import type { DiagnosticsSink } from "../core/emitter.js";
import { asConversationArtifact, compareConversationArtifacts, conversationArtifactKey, type ConversationArtifact } from "../persistence/conversation-artifacts.js";
import { RUNTIME_COLLECTIONS as C } from "../persistence/runtime-schema.js";
import type { RuntimeStore } from "../persistence/store.js";
import { MAX_ARTIFACT_BYTES, type StoredArtifact } from "./handlers/artifacts.js";
import type { RuntimeInput } from "./inputs.js";
import type { RuntimeState } from "./state.js";

/** An artifact as an app sees it, without its bytes. */
export interface ArtifactInfo {
  readonly artifact: ArtifactRef;
  /** The conversation it was shared with; absent for an app's artifact kept to itself. */
  readonly conversation_id?: string;
  /** Who made it: an app on this device (`app_scope` names it), the conversation's agent, or another of the user's devices. */
  readonly origin: "app" | "agent" | "device";
  readonly app_scope?: string;
  readonly created_at: string;
  /** Its bytes are on this device: it reads and saves without a connection. */
  readonly on_device: boolean;
}

export interface ArtifactRead {
  readonly artifact: ArtifactRef;
  readonly bytes: Uint8Array;
  readonly truncated: boolean;
}

export interface ArtifactAccessDeps {
  readonly store: Pick<RuntimeStore, "get" | "getMany" | "range">;
  state(): RuntimeState;
  post(input: RuntimeInput): Promise<unknown>;
  /** The AppServer's copy, read chunk by chunk (`request_cancelled` while offline). */
  readServer(conversationId: string, artifactId: string, maxBytes: number): Promise<ArtifactRead>;
  requestCapability(appScope: string, request: AppCapabilityRequest): Promise<CapabilityResult>;
  readonly diagnostics: DiagnosticsSink;
}

/** The most a list returns (its newest entries); the default is `DEFAULT_LIST_LIMIT`. */
export const MAX_LIST_LIMIT = 1000;
export const DEFAULT_LIST_LIMIT = 200;

export interface ArtifactAccess {
  read(artifactId: string, options?: { readonly conversation_id?: string; readonly maxBytes?: number }): Promise<ArtifactRead>;
  info(artifactId: string, options?: { readonly conversation_id?: string }): Promise<ArtifactInfo>;
  list(options?: { readonly conversation_id?: string; readonly limit?: number }): Promise<ArtifactInfo[]>;
  save(request: { readonly artifact_id: string; readonly conversation_id?: string; readonly instance_id?: string }): Promise<CapabilityResult>;
}

export function createArtifactAccess(deps: ArtifactAccessDeps, appScope: string): ArtifactAccess {
  const localRecord = async (artifactId: string): Promise<StoredArtifact | undefined> => {
    if (typeof artifactId !== "string" || artifactId.length === 0 || artifactId.length > 128) throw new LineUpError("invalid_params", "artifact_id must be a non-empty string of at most 128 characters", { path: "/artifact_id" });
    return (await deps.store.get(C.artifacts, artifactId)) as unknown as StoredArtifact | undefined;
  };
  const visible = (stored: StoredArtifact, conversationId: string | undefined): boolean =>
    stored.app_scope === appScope || (stored.conversation_id !== undefined && stored.conversation_id === conversationId);
  const indexed = async (conversationId: string, artifactId: string): Promise<ConversationArtifact | undefined> =>
    asConversationArtifact(await deps.store.get(C.conversationArtifacts, conversationArtifactKey(conversationId, artifactId)), conversationId);
  const notFound = (artifactId: string): LineUpError => new LineUpError("not_found", `no artifact ${artifactId} this app may read`);

  const read: ArtifactAccess["read"] = async (artifactId, options = {}) => {
    const stored = await localRecord(artifactId);
    const conversationId = options.conversation_id;
    const max = options.maxBytes ?? MAX_ARTIFACT_BYTES;
    if (stored === undefined && conversationId !== undefined && deps.state().conversations.get(conversationId)?.origin === "server") {
      // Not on this device: the conversation's copy on the AppServer (an agent's file, another device's).
      const server = await deps.readServer(conversationId, artifactId, max);
      if (!server.truncated && server.bytes.byteLength === server.artifact.size) {
        // Read whole and checked: kept, so the next read and a save need no connection.
        deps.post({ kind: "artifact.cache", conversation_id: conversationId, artifact: server.artifact, bytes: server.bytes }).catch((error: unknown) => deps.diagnostics(error, "artifact.cache"));
      }
      return server;
    }
    if (stored === undefined || !visible(stored, conversationId)) throw notFound(artifactId);
    const bytes = (await deps.store.get(C.artifactData, artifactId)) as Uint8Array | undefined;
    if (!(bytes instanceof Uint8Array)) throw new LineUpError("not_found", `the bytes of artifact ${artifactId} are gone`);
    return { artifact: stored.artifact, bytes: bytes.subarray(0, max), truncated: bytes.byteLength > max };
  };

  const infoOf = (row: ConversationArtifact | undefined, stored: StoredArtifact | undefined): ArtifactInfo => {
    const artifact = stored?.artifact ?? row!.artifact;
    const conversationId = stored?.conversation_id ?? row?.conversation_id;
    const madeHere = stored !== undefined && stored.app_scope !== RUNTIME_SCOPE;
    return {
      artifact,
      ...(conversationId === undefined ? {} : { conversation_id: conversationId }),
      origin: madeHere ? "app" : row?.added_by ?? "device",
      ...(madeHere ? { app_scope: stored.app_scope } : {}),
      created_at: row?.added_at ?? stored!.created_at,
      on_device: stored !== undefined,
    };
  };

  return {
    read,

    async info(artifactId, options = {}) {
      const conversationId = options.conversation_id;
      const stored = await localRecord(artifactId);
      const row = conversationId === undefined ? undefined : await indexed(conversationId, artifactId);
      if (stored !== undefined && visible(stored, conversationId)) return infoOf(row, stored);
      if (row !== undefined) return infoOf(row, undefined);
      throw notFound(artifactId);
    },

    async list(options = {}) {
      const limit = options.limit ?? DEFAULT_LIST_LIMIT;
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) throw new LineUpError("invalid_params", `limit must be an integer from 1 to ${MAX_LIST_LIMIT}`, { path: "/limit" });
      const conversationId = options.conversation_id;
      if (conversationId === undefined) {
        // The app's own artifacts, shared or not, oldest first.
        const mine: ArtifactInfo[] = [];
        for (const { value } of await deps.store.range(C.artifacts)) {
          const stored = value as unknown as StoredArtifact;
          if (stored.app_scope === appScope) mine.push(infoOf(undefined, stored));
        }
        mine.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.artifact.artifact_id < b.artifact.artifact_id ? -1 : 1));
        return mine.slice(-limit);
      }
      if (typeof conversationId !== "string" || !deps.state().conversations.has(conversationId)) throw new LineUpError("conversation_unknown", `no conversation ${String(conversationId)}`, { path: "/conversation_id" });
      const rows: ConversationArtifact[] = [];
      for (const { value } of await deps.store.range(C.conversationArtifacts, { prefix: `${conversationId}/` })) {
        const row = asConversationArtifact(value, conversationId);
        if (row !== undefined) rows.push(row);
      }
      rows.sort(compareConversationArtifacts);
      const newest = rows.slice(-limit);
      const stored = await deps.store.getMany(newest.map((row) => ({ collection: C.artifacts, key: row.artifact.artifact_id })));
      return newest.map((row, index) => infoOf(row, stored[index] as unknown as StoredArtifact | undefined));
    },

    async save(request) {
      const { artifact, bytes } = await read(request.artifact_id, { ...(request.conversation_id === undefined ? {} : { conversation_id: request.conversation_id }) });
      // Through the Capability Gateway: the app must declare `file.save`, be in front, and the host asks the person where.
      return deps.requestCapability(appScope, {
        capability: "file.save",
        purpose: `Save "${artifact.name}"`,
        input: { name: safeFileName(artifact.name), mime_type: artifact.mime_type, data: bytesToBase64(bytes) },
        ...(request.instance_id === undefined ? {} : { instance_id: request.instance_id }),
      });
    },
  };
}

/** Ids per release input: a turn reads each one's record. */
const RELEASE_PAGE = 256;

/**
 * Finds the artifacts the removed apps `appScopes` kept to themselves (shared with no conversation) and
 * posts their release, page by page; the last page of each app clears its removal's marker. The
 * transition deletes them only if that app is indeed not installed. Run when an app is removed.
 */
export async function releaseArtifacts(deps: Pick<ArtifactAccessDeps, "store" | "post">, appScopes: readonly string[]): Promise<void> {
  if (appScopes.length === 0) return;
  const byApp = new Map<string, string[]>(appScopes.map((scope) => [scope, []]));
  for (const { key, value } of await deps.store.range(C.artifacts)) {
    const stored = value as unknown as StoredArtifact;
    if (stored.conversation_id === undefined) byApp.get(stored.app_scope)?.push(key);
  }
  for (const [appScope, ids] of byApp) {
    let start = 0;
    do {
      const page = ids.slice(start, start + RELEASE_PAGE);
      start += RELEASE_PAGE;
      await deps.post({ kind: "artifacts.release", app_scope: appScope, artifact_ids: page, last: start >= ids.length });
    } while (start < ids.length);
  }
}

