/**
 * The catalog of signed releases (spec 003's Registry role): params and results of `catalog/publish`,
 * `catalog/list` and `catalog/read`. The catalog distributes bundles and their release metadata; it runs
 * nothing, and a device verifies every bundle it installs from it against its own trusted keys.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { Closed, OpaqueIdSchema, TimestampSchema, schemaId } from "../schema-kit.js";
import { SEMVER_PATTERN } from "../manifest/schemas.js";
import { AfterKeySchema, AppScopeStringSchema, BASE64_PATTERN, IdempotencyKeySchema, RecordRef, Sha256HexSchema } from "./records.js";
import { Base64, params, result } from "./method-schema.js";
const VersionSchema = () => Type.String({ maxLength: 64, pattern: SEMVER_PATTERN });

/** The key that signed a release: a publisher key as a Runtime's settings list it (docs/bundle.md §4). */
export const CatalogPublisherSchema = /* @__PURE__ */ Closed(
  {
    /** Lowercase hex SHA-256 of the raw public key. */
    key_id: /* @__PURE__ */ Sha256HexSchema(),
    /** Standard padded base64 of the 32-byte raw Ed25519 public key. */
    public_key: /* @__PURE__ */ Type.String({ minLength: 44, maxLength: 44, pattern: BASE64_PATTERN }),
  },
  { $id: /* @__PURE__ */ schemaId("app-server.catalog-publisher"), title: "Catalog publisher key" },
);
export type CatalogPublisher = Static<typeof CatalogPublisherSchema>;

/** One published release: what the catalog says of a bundle it holds. */
export const CatalogReleaseSchema = /* @__PURE__ */ Closed(
  {
    app_scope: /* @__PURE__ */ AppScopeStringSchema(),
    /** The manifest's version. */
    version: /* @__PURE__ */ VersionSchema(),
    /** The manifest's name and description. */
    name: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 200 }),
    description: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ maxLength: 2000 })),
    publisher: /* @__PURE__ */ RecordRef<CatalogPublisher>("app-server.catalog-publisher"),
    /** SHA-256 of the bundle archive, lowercase hex. */
    sha256: /* @__PURE__ */ Sha256HexSchema(),
    size: /* @__PURE__ */ Type.Integer({ minimum: 1 }),
    published_at: /* @__PURE__ */ TimestampSchema(),
  },
  { $id: /* @__PURE__ */ schemaId("app-server.catalog-release"), title: "Catalog release" },
);
export type CatalogRelease = Static<typeof CatalogReleaseSchema>;
const ReleaseRef = () => RecordRef<CatalogRelease>("app-server.catalog-release");

export const CatalogPublishParamsSchema = /* @__PURE__ */ params(
  "catalog/publish",
  {
    idempotency_key: /* @__PURE__ */ IdempotencyKeySchema(),
    after_key: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AfterKeySchema()),
    /** Names this upload among the caller's; chunks of one upload repeat size, sha256 and publisher. */
    upload_id: /* @__PURE__ */ OpaqueIdSchema(),
    /** The bundle's size in bytes; at most `limits.max_artifact_bytes`. */
    size: /* @__PURE__ */ Type.Integer({ minimum: 1 }),
    /** SHA-256 of the whole bundle, lowercase hex; checked when the last byte arrives. */
    sha256: /* @__PURE__ */ Sha256HexSchema(),
    /** The key the bundle is signed with: the signature is verified against it when the last byte arrives. */
    publisher: /* @__PURE__ */ RecordRef<CatalogPublisher>("app-server.catalog-publisher"),
    /** Must equal the bytes received so far. */
    offset: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
    /** This chunk, base64; at most `limits.max_chunk_bytes` decoded. */
    data: /* @__PURE__ */ Base64(),
  },
  "Uploads one chunk of a signed bundle; the chunk that completes it verifies the SHA-256, the signature and the version, and publishes the release.",
);
export const CatalogPublishResultSchema = /* @__PURE__ */ result("catalog/publish", {
  upload_id: /* @__PURE__ */ OpaqueIdSchema(),
  received: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
  complete: /* @__PURE__ */ Type.Boolean(),
  /** Present when complete: the release as the catalog now lists it. */
  release: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ ReleaseRef()),
});

/** The most apps one `catalog/list` page holds, and how many it holds by default. */
export const CATALOG_LIST_MAX_APPS = 200;
export const CATALOG_LIST_DEFAULT_APPS = 50;

export const CatalogListParamsSchema = /* @__PURE__ */ params(
  "catalog/list",
  {
    /** Only this app's releases. */
    app_scope: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AppScopeStringSchema()),
    /** The page after this app scope: the previous page's `next_after`. */
    after: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AppScopeStringSchema()),
    /** Apps in this page (each with its whole version history); default 50. */
    limit: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1, maximum: CATALOG_LIST_MAX_APPS })),
  },
  "Lists the catalog's releases a page of apps at a time: by app scope, each app's newest version first.",
);
export const CatalogListResultSchema = /* @__PURE__ */ result("catalog/list", {
  releases: /* @__PURE__ */ Type.Array(/* @__PURE__ */ ReleaseRef()),
  /** Present when more apps follow: pass it as `after` for the next page. */
  next_after: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AppScopeStringSchema()),
});

export const CatalogReadParamsSchema = /* @__PURE__ */ params(
  "catalog/read",
  {
    app_scope: /* @__PURE__ */ AppScopeStringSchema(),
    version: /* @__PURE__ */ VersionSchema(),
    offset: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 0 })),
    /** Default and maximum: `limits.max_chunk_bytes`. */
    length: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1 })),
  },
  "Reads a chunk of a release's bundle, base64.",
);
export const CatalogReadResultSchema = /* @__PURE__ */ result("catalog/read", {
  release: /* @__PURE__ */ ReleaseRef(),
  offset: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
  data: /* @__PURE__ */ Base64(),
  /** True when this chunk reaches the end. */
  eof: /* @__PURE__ */ Type.Boolean(),
});

/** A release the catalog has just published, told to the devices connected to this server (a hint: `catalog/list` is the truth). */
export const CatalogReleasedParamsSchema = /* @__PURE__ */ Closed(
  {
    release: /* @__PURE__ */ ReleaseRef(),
  },
  { $id: /* @__PURE__ */ schemaId("app-server.catalog.released.params"), title: "catalog/released params" },
);
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
