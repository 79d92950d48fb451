/**
 * The catalog of signed releases (spec 003's Registry role: distribution and release metadata, no
 * runtime). A device uploads a signed bundle chunk by chunk; the chunk that completes it is checked
 * against its SHA-256, then verified as a Runtime verifies it (docs/bundle.md §5) with the publisher key
 * the upload names as the only trusted key. The first release of an app scope binds the scope to that
 * key; a later release must be signed by it and be newer than the app's latest. Devices list the
 * releases and read their bundles, which each Runtime verifies again against its own trusted keys.
 */
import { canonicalJson, CATALOG_LIST_DEFAULT_APPS, encodeJsonRpc, jsonRpcNotification, type AppManifest, type JsonObject, type CatalogRelease, type JsonValue, type MethodParams, type MethodResult } from "@lineup/protocol";
import { compareVersions, verifyBundle } from "@lineup/runtime/bundle";
import {
  appendCatalogChunk,
  bindCatalogPublisher,
  catalogPublisherOf,
  findCatalogRelease,
  findCatalogUpload,
  finishCatalogUpload,
  insertCatalogRelease,
  joinedCatalogChunks,
  listCatalogReleases,
  pageCatalogReleases,
  readCatalogBundleRange,
  startCatalogUpload,
} from "../store/catalog.js";
import { sha256Hex } from "../store/principals.js";
import type { ConnectionDirectory } from "../directory.js";
import type { WriteContext } from "../write-queue.js";
import { refuse, type CallContext } from "./context.js";

export async function publishRelease(ctx: CallContext, params: MethodParams<"catalog/publish">) {
  const { services, principal } = ctx;
  const bytes = Buffer.from(params.data, "base64");
  // The chunk that completes an upload: the bundle is joined, hashed and verified before the write
  // transaction, so a large bundle's check does not hold up the group commit for everyone else. The chunks
  // before this one are fixed once acknowledged, and the transaction admits the result only if the upload
  // still stands at this chunk's offset.
  const checked = params.offset + bytes.byteLength === params.size ? await checkCompletedBundle(ctx, params, bytes) : undefined;
  return services.idempotent.run(principal, "catalog/publish", params, async (w): Promise<MethodResult<"catalog/publish">> => {
    const { upload_id: uploadId, size, sha256, publisher, offset } = params;
    let upload = await findCatalogUpload(w.db, principal.key, uploadId);
    if (upload === undefined) {
      if (offset !== 0) throw refuse("invalid_state", `no upload ${uploadId} yet: start at offset 0`, "/offset");
      await startCatalogUpload(w.db, principal.key, uploadId, { size, sha256, publisher }, w.now);
      upload = (await findCatalogUpload(w.db, principal.key, uploadId))!;
    } else {
      if (upload.received === upload.size) throw refuse("invalid_state", `upload ${uploadId} is already published`, "/upload_id");
      if (upload.size !== size || upload.sha256 !== sha256 || upload.publisher !== canonicalJson(publisher as unknown as JsonValue)) {
        throw refuse("invalid_state", `upload ${uploadId} is under way with another size, sha256 or publisher`, "/upload_id");
      }
    }
    if (offset !== upload.received) throw refuse("invalid_state", `expected offset ${upload.received}`, "/offset");
    await appendCatalogChunk(w.db, principal.key, uploadId, offset, bytes);
    const received = upload.received + bytes.byteLength;
    if (received < size) return { upload_id: uploadId, received, complete: false };
    if (checked === undefined) throw refuse("invalid_params", `the chunks come to ${received} bytes, past the upload's size ${size}; start over with a new upload_id`, "/data");
    const release = await admitRelease(w, checked.manifest, checked.size, params);
    await insertCatalogRelease(w.db, release, checked.bundle, principal.key);
    await finishCatalogUpload(w.db, principal.key, uploadId);
    w.afterCommit(() => announceRelease(services.directory, release));
    return { upload_id: uploadId, received, complete: true, release };
  });
}

/**
 * `catalog/released`: after a release committed, every device connection of this server process hears of it (a hint:
 * not replayed, and other processes' devices find it in `catalog/list`). A host updates a dev release of an
 * installed app from it (`lineup dev`); anything else it offers, as `catalog/list` would.
 */
function announceRelease(directory: ConnectionDirectory, release: CatalogRelease): void {
  const frame = encodeJsonRpc(jsonRpcNotification("catalog/released", { release: release as unknown as JsonObject }));
  for (const connection of directory.allDeviceConnections()) connection.sendEncoded(frame);
}

/**
 * The whole bundle of an upload this chunk completes — the chunks committed before it, then this one — checked
 * against the upload's sha256 and verified as a Runtime verifies it, trusting only the publisher key the upload
 * names. Outside any transaction: what it read is re-checked there (the upload's offset).
 */
async function checkCompletedBundle(ctx: CallContext, params: MethodParams<"catalog/publish">, chunk: Buffer): Promise<{ bundle: Buffer; manifest: AppManifest; size: number } | undefined> {
  const { services, principal } = ctx;
  const upload = await findCatalogUpload(services.db, principal.key, params.upload_id);
  // Not at this offset: the transaction refuses the chunk with the offset it expects.
  const at = upload === undefined ? 0 : upload.received === upload.size ? undefined : upload.received;
  if (at !== params.offset) return undefined;
  const bundle = params.offset === 0 ? chunk : Buffer.concat([await joinedCatalogChunks(services.db, principal.key, params.upload_id), chunk]);
  if (sha256Hex(bundle) !== params.sha256) throw refuse("invalid_params", "the bundle does not match sha256; start over with a new upload_id", "/sha256");
  const verified = await verifyBundle(bundle, { trustedKeys: [params.publisher], archiveDigest: false });
  if (!verified.ok) throw refuse(verified.error.code, verified.error.message, verified.error.path);
  return { bundle, manifest: verified.value.manifest, size: bundle.byteLength };
}

/** The release a verified bundle makes, or the refusal: another publisher's scope, or not newer. */
async function admitRelease(w: WriteContext, manifest: AppManifest, size: number, params: MethodParams<"catalog/publish">): Promise<CatalogRelease> {
  const bound = await catalogPublisherOf(w.db, manifest.app_scope);
  if (bound === undefined) await bindCatalogPublisher(w.db, manifest.app_scope, params.publisher, w.now);
  else if (bound.key_id !== params.publisher.key_id) {
    throw refuse("forbidden", `${manifest.app_scope} is published with key ${bound.key_id.slice(0, 12)}…; a release must be signed by that key`, "/publisher/key_id");
  }
  const releases = await listCatalogReleases(w.db, manifest.app_scope);
  if (releases.some((r) => r.version === manifest.version)) throw refuse("invalid_state", `${manifest.app_scope} ${manifest.version} is already published`);
  const latest = releases.map((r) => r.version).sort(compareVersions).at(-1);
  if (latest !== undefined && compareVersions(manifest.version, latest) < 0) {
    throw refuse("bundle_downgrade", `${manifest.app_scope} ${manifest.version} is older than the latest release ${latest}`);
  }
  return {
    app_scope: manifest.app_scope,
    version: manifest.version,
    name: manifest.name ?? manifest.app_scope,
    ...(manifest.description === undefined ? {} : { description: manifest.description }),
    publisher: { key_id: params.publisher.key_id, public_key: params.publisher.public_key },
    sha256: params.sha256,
    size,
    published_at: w.now,
  };
}

/** One app's version history, or a page of apps with theirs; each app's newest version first. */
export async function listReleases(ctx: CallContext, params: MethodParams<"catalog/list">): Promise<MethodResult<"catalog/list">> {
  const page = params.app_scope === undefined ? await pageCatalogReleases(ctx.services.db, params.after, params.limit ?? CATALOG_LIST_DEFAULT_APPS) : { releases: await listCatalogReleases(ctx.services.db, params.app_scope) };
  const releases = page.releases.sort((a, b) => (a.app_scope === b.app_scope ? compareVersions(b.version, a.version) : a.app_scope < b.app_scope ? -1 : 1));
  return page.last === undefined ? { releases } : { releases, next_after: page.last };
}

export async function readRelease(ctx: CallContext, params: MethodParams<"catalog/read">): Promise<MethodResult<"catalog/read">> {
  const db = ctx.services.db;
  const release = await findCatalogRelease(db, params.app_scope, params.version);
  if (release === undefined) throw refuse("not_found", `no release ${params.app_scope} ${params.version} in the catalog`, "/version");
  const offset = params.offset ?? 0;
  if (offset > release.size) throw refuse("invalid_params", `offset ${offset} is past the size ${release.size}`, "/offset");
  const length = Math.min(params.length ?? ctx.services.limits.max_chunk_bytes, ctx.services.limits.max_chunk_bytes);
  const part = await readCatalogBundleRange(db, params.app_scope, params.version, offset, length);
  return { release, offset, data: part.toString("base64"), eof: offset + part.byteLength >= release.size };
}
