/**
 * The AppServer's catalog of signed releases as a host sees it (spec 003's Registry role): the releases
 * with each app's version history, and a release's bundle. The catalog only distributes: a host installs
 * or updates from its bytes through the App Manager, which verifies them against this Runtime's own
 * trusted keys. Installed apps never depend on it: while the AppServer is unreachable every call is
 * refused (`request_cancelled`) and nothing else changes.
 */
import { base64ToBytes, LineUpError, type CatalogRelease, type MethodParams, type MethodResult } from "@lineup/protocol";
import { concatBytes } from "../core/bytes.js";
import { sha256Hex } from "../core/sha256.js";

export type { CatalogRelease };

export interface RuntimeCatalog {
  /** Every release (or one app's), by app scope, each app's newest first. Refused `request_cancelled` while not connected. */
  list(appScope?: string): Promise<readonly CatalogRelease[]>;
  /** The bundle of one release, read whole and checked against the release's SHA-256 and size. */
  fetchBundle(appScope: string, version: string): Promise<Uint8Array>;
}

/** One catalog request over the Runtime's connection; refused `request_cancelled` while there is none. */
export type CatalogRequest = <M extends "catalog/list" | "catalog/read">(method: M, params: MethodParams<M>) => Promise<MethodResult<M>>;

export function createRuntimeCatalog(request: CatalogRequest): RuntimeCatalog {
  return {
    async list(appScope) {
      if (appScope !== undefined) return (await request("catalog/list", { app_scope: appScope })).releases;
      const releases: CatalogRelease[] = [];
      const pagesAfter = new Set<string>();
      for (let after: string | undefined; ; ) {
        const page = await request("catalog/list", after === undefined ? {} : { after });
        releases.push(...page.releases);
        if (page.next_after === undefined) return releases;
        if (pagesAfter.has(page.next_after)) throw new LineUpError("internal_error", "the AppServer's catalog pages do not move forward");
        pagesAfter.add(page.next_after);
        after = page.next_after;
      }
    },
    async fetchBundle(appScope, version) {
      const parts: Uint8Array[] = [];
      let received = 0;
      for (;;) {
        const chunk = await request("catalog/read", { app_scope: appScope, version, offset: received });
        const bytes = base64ToBytes(chunk.data);
        if (bytes === undefined || chunk.offset !== received) throw new LineUpError("internal_error", `the AppServer answered catalog/read of ${appScope} ${version} with a malformed chunk`);
        parts.push(bytes);
        received += bytes.byteLength;
        if (received > chunk.release.size) throw new LineUpError("internal_error", `the AppServer sent more of ${appScope} ${version} than its size`);
        if (chunk.eof || bytes.byteLength === 0) {
          const bundle = concatBytes(parts);
          if (bundle.byteLength !== chunk.release.size || sha256Hex(bundle) !== chunk.release.sha256) {
            throw new LineUpError("internal_error", `${appScope} ${version} from the catalog does not match its SHA-256`);
          }
          return bundle;
        }
      }
    },
  };
}
