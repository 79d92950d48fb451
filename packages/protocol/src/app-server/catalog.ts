/**
 * The catalog of signed releases (spec 003's Registry role): params and results of `catalog/publish`,
 * `catalog/list` and `catalog/read`. The catalog distributes bundles and their release metadata; it runs
 * nothing, and a device verifies every bundle it installs from it against its own trusted keys.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { Closed, OpaqueIdSchema, TimestampSchema, schemaId, declared } from "../schema-kit.js";
import { SEMVER_PATTERN } from "../manifest/schemas.js";
import { AfterKeySchema, AppScopeStringSchema, BASE64_PATTERN, IdempotencyKeySchema, RecordRef, Sha256HexSchema } from "./records.js";
import { Base64, params, result } from "./method-schema.js";
const VersionSchema = () => Type.String({ maxLength: 64, pattern: SEMVER_PATTERN });

/** The key that signed a release: a publisher key as a Runtime's settings list it (docs/bundle.md §4). */
export const CatalogPublisherSchema = /* @__PURE__ */ declared(() => Closed(
  {
    /** Lowercase hex SHA-256 of the raw public key. */
    key_id: Sha256HexSchema(),
    /** Standard padded base64 of the 32-byte raw Ed25519 public key. */
    public_key: Type.String({ minLength: 44, maxLength: 44, pattern: BASE64_PATTERN }),
  },
  { $id: schemaId("app-server.catalog-publisher"), title: "Catalog publisher key" },
));
export type CatalogPublisher = Static<typeof CatalogPublisherSchema>;

/** One published release: what the catalog says of a bundle it holds. */
export const CatalogReleaseSchema = /* @__PURE__ */ declared(() => Closed(
  {
    app_scope: AppScopeStringSchema(),
    /** The manifest's version. */
    version: VersionSchema(),
    /** The manifest's name and description. */
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    publisher: RecordRef<CatalogPublisher>("app-server.catalog-publisher"),
    /** SHA-256 of the bundle archive, lowercase hex. */
    sha256: Sha256HexSchema(),
    size: Type.Integer({ minimum: 1 }),
    published_at: TimestampSchema(),
  },
  { $id: schemaId("app-server.catalog-release"), title: "Catalog release" },
));
export type CatalogRelease = Static<typeof CatalogReleaseSchema>;
const ReleaseRef = () => RecordRef<CatalogRelease>("app-server.catalog-release");

export const CatalogPublishParamsSchema = /* @__PURE__ */ declared(() => params(
  "catalog/publish",
  {
    idempotency_key: IdempotencyKeySchema(),
    after_key: Type.Optional(AfterKeySchema()),
    /** Names this upload among the caller's; chunks of one upload repeat size, sha256 and publisher. */
    upload_id: OpaqueIdSchema(),
    /** The bundle's size in bytes; at most `limits.max_artifact_bytes`. */
    size: Type.Integer({ minimum: 1 }),
    /** SHA-256 of the whole bundle, lowercase hex; checked when the last byte arrives. */
    sha256: Sha256HexSchema(),
    /** The key the bundle is signed with: the signature is verified against it when the last byte arrives. */
    publisher: RecordRef<CatalogPublisher>("app-server.catalog-publisher"),
    /** Must equal the bytes received so far. */
    offset: Type.Integer({ minimum: 0 }),
    /** This chunk, base64; at most `limits.max_chunk_bytes` decoded. */
    data: Base64(),
  },
  "Uploads one chunk of a signed bundle; the chunk that completes it verifies the SHA-256, the signature and the version, and publishes the release.",
));
export const CatalogPublishResultSchema = /* @__PURE__ */ declared(() => result("catalog/publish", {
  upload_id: OpaqueIdSchema(),
  received: Type.Integer({ minimum: 0 }),
  complete: Type.Boolean(),
  /** Present when complete: the release as the catalog now lists it. */
  release: Type.Optional(ReleaseRef()),
}));

/** The most apps one `catalog/list` page holds, and how many it holds by default. */
export const CATALOG_LIST_MAX_APPS = 200;
export const CATALOG_LIST_DEFAULT_APPS = 50;

export const CatalogListParamsSchema = /* @__PURE__ */ declared(() => params(
  "catalog/list",
  {
    /** Only this app's releases. */
    app_scope: Type.Optional(AppScopeStringSchema()),
    /** The page after this app scope: the previous page's `next_after`. */
    after: Type.Optional(AppScopeStringSchema()),
    /** Apps in this page (each with its whole version history); default 50. */
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CATALOG_LIST_MAX_APPS })),
  },
  "Lists the catalog's releases a page of apps at a time: by app scope, each app's newest version first.",
));
export const CatalogListResultSchema = /* @__PURE__ */ declared(() => result("catalog/list", {
  releases: Type.Array(ReleaseRef()),
  /** Present when more apps follow: pass it as `after` for the next page. */
  next_after: Type.Optional(AppScopeStringSchema()),
}));

export const CatalogReadParamsSchema = /* @__PURE__ */ declared(() => params(
  "catalog/read",
  {
    app_scope: AppScopeStringSchema(),
    version: VersionSchema(),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Default and maximum: `limits.max_chunk_bytes`. */
    length: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  "Reads a chunk of a release's bundle, base64.",
));
export const CatalogReadResultSchema = /* @__PURE__ */ declared(() => result("catalog/read", {
  release: ReleaseRef(),
  offset: Type.Integer({ minimum: 0 }),
  data: Base64(),
  /** True when this chunk reaches the end. */
  eof: Type.Boolean(),
}));

/** A release the catalog has just published, told to the devices connected to this server (a hint: `catalog/list` is the truth). */
export const CatalogReleasedParamsSchema = /* @__PURE__ */ declared(() => Closed(
  {
    release: ReleaseRef(),
  },
  { $id: schemaId("app-server.catalog.released.params"), title: "catalog/released params" },
));
export type CatalogReleasedParams = Static<typeof CatalogReleasedParamsSchema>;

export const CATALOG_SCHEMAS: readonly TSchema[] = [
  CatalogPublisherSchema,
  CatalogReleaseSchema,
  CatalogPublishParamsSchema,
  CatalogPublishResultSchema,
  CatalogListParamsSchema,
  CatalogListResultSchema,
  CatalogReadParamsSchema,
  CatalogReadResultSchema,
  CatalogReleasedParamsSchema,
];
