/**
 * The catalog's rows: each app scope is bound to the publisher key of its first release; each release keeps
 * its metadata (the wire record, as canonical JSON) and its bundle. An upload collects chunks per caller
 * until `size` bytes arrived, as artifact uploads do.
 */
import { canonicalJson, type CatalogPublisher, type CatalogRelease, type JsonValue } from "@lineup/protocol";
import type { Db } from "./sql.js";

export interface CatalogUploadRow {
  readonly size: number;
  readonly sha256: string;
  /** Canonical JSON of the publisher key the upload names. */
  readonly publisher: string;
  readonly received: number;
}

export async function findCatalogUpload(db: Db, principal: string, uploadId: string): Promise<CatalogUploadRow | undefined> {
  return db.get<CatalogUploadRow>("SELECT size, sha256, publisher, received FROM catalog_uploads WHERE principal = ? AND upload_id = ?", [principal, uploadId]);
}

export async function startCatalogUpload(db: Db, principal: string, uploadId: string, upload: { size: number; sha256: string; publisher: CatalogPublisher }, now: string): Promise<void> {
  await db.run("INSERT INTO catalog_uploads (principal, upload_id, size, sha256, publisher, received, created_at) VALUES (?, ?, ?, ?, ?, 0, ?)", [
    principal,
    uploadId,
    upload.size,
    upload.sha256,
    canonicalJson(upload.publisher as unknown as JsonValue),
    now,
  ]);
}

export async function appendCatalogChunk(db: Db, principal: string, uploadId: string, offset: number, data: Buffer): Promise<void> {
  await db.run('INSERT INTO catalog_upload_chunks (principal, upload_id, "offset", data) VALUES (?, ?, ?, ?)', [principal, uploadId, offset, data]);
  await db.run("UPDATE catalog_uploads SET received = received + ? WHERE principal = ? AND upload_id = ?", [data.byteLength, principal, uploadId]);
}

export async function joinedCatalogChunks(db: Db, principal: string, uploadId: string): Promise<Buffer> {
  const rows = await db.all<{ data: Buffer }>('SELECT data FROM catalog_upload_chunks WHERE principal = ? AND upload_id = ? ORDER BY "offset"', [principal, uploadId]);
  return Buffer.concat(rows.map((r) => r.data));
}

/** The upload is over (published): its chunks go; the row stays, so the same upload id is not reused. */
export async function finishCatalogUpload(db: Db, principal: string, uploadId: string): Promise<void> {
  await db.run("UPDATE catalog_uploads SET received = size WHERE principal = ? AND upload_id = ?", [principal, uploadId]);
  await db.run("DELETE FROM catalog_upload_chunks WHERE principal = ? AND upload_id = ?", [principal, uploadId]);
}

/** The key bound to an app scope by its first release. */
export async function catalogPublisherOf(db: Db, appScope: string): Promise<CatalogPublisher | undefined> {
  const row = await db.get<{ key_id: string; public_key: string }>("SELECT key_id, public_key FROM catalog_apps WHERE app_scope = ?", [appScope]);
  return row === undefined ? undefined : { key_id: row.key_id, public_key: row.public_key };
}

export async function bindCatalogPublisher(db: Db, appScope: string, publisher: CatalogPublisher, now: string): Promise<void> {
  await db.run("INSERT INTO catalog_apps (app_scope, key_id, public_key, created_at) VALUES (?, ?, ?, ?)", [appScope, publisher.key_id, publisher.public_key, now]);
}

export async function insertCatalogRelease(db: Db, release: CatalogRelease, bundle: Buffer, publishedBy: string): Promise<void> {
  await db.run("INSERT INTO catalog_releases (app_scope, version, record, bundle, published_by) VALUES (?, ?, ?, ?, ?)", [
    release.app_scope,
    release.version,
    canonicalJson(release as unknown as JsonValue),
    bundle,
    publishedBy,
  ]);
}

/** Every release (or one app's), in no particular order: the caller sorts by version. */
export async function listCatalogReleases(db: Db, appScope?: string): Promise<CatalogRelease[]> {
  const rows =
    appScope === undefined
      ? await db.all<{ record: string }>("SELECT record FROM catalog_releases")
      : await db.all<{ record: string }>("SELECT record FROM catalog_releases WHERE app_scope = ?", [appScope]);
  return rows.map((r) => JSON.parse(r.record) as CatalogRelease);
}

/**
 * One page of apps: the releases of at most `limit` app scopes after `after`, in the store's order of app scopes,
 * and the last scope of the page when more follow.
 */
export async function pageCatalogReleases(db: Db, after: string | undefined, limit: number): Promise<{ releases: CatalogRelease[]; last?: string }> {
  const scopes = (
    after === undefined
      ? await db.all<{ app_scope: string }>("SELECT DISTINCT app_scope FROM catalog_releases ORDER BY app_scope LIMIT ?", [limit + 1])
      : await db.all<{ app_scope: string }>("SELECT DISTINCT app_scope FROM catalog_releases WHERE app_scope > ? ORDER BY app_scope LIMIT ?", [after, limit + 1])
  ).map((r) => r.app_scope);
  const page = scopes.slice(0, limit);
  if (page.length === 0) return { releases: [] };
  const rows = await db.all<{ record: string }>(`SELECT record FROM catalog_releases WHERE app_scope IN (${page.map(() => "?").join(", ")})`, page);
  const releases = rows.map((r) => JSON.parse(r.record) as CatalogRelease);
  return scopes.length > limit ? { releases, last: page.at(-1)! } : { releases };
}

export async function findCatalogRelease(db: Db, appScope: string, version: string): Promise<CatalogRelease | undefined> {
  const row = await db.get<{ record: string }>("SELECT record FROM catalog_releases WHERE app_scope = ? AND version = ?", [appScope, version]);
  return row === undefined ? undefined : (JSON.parse(row.record) as CatalogRelease);
}

/** Bytes [offset, offset + length) of a release's bundle. */
export async function readCatalogBundleRange(db: Db, appScope: string, version: string, offset: number, length: number): Promise<Buffer> {
  const row = await db.get<{ part: Buffer | null }>("SELECT substr(bundle, ?, ?) AS part FROM catalog_releases WHERE app_scope = ? AND version = ?", [offset + 1, length, appScope, version]);
  return row?.part ?? Buffer.alloc(0);
}
