/** The app and the rows both app storage rows of the backends suite write (SQLite in Node, IndexedDB in Chromium). */
export const benchJournalManifest = {
  format: "lineup.app.v1",
  app_scope: "bench-journal",
  version: "1.0.0",
  runtime_sdk: { api_version: "1", required_features: ["app.storage.v1"] },
  entrypoints: [{ id: "main", kind: "primary" }],
  storage: { quota_bytes: 1024 * 1024 * 1024, collections: [{ name: "entries", value_schema: { type: "object", required: ["title", "body"], properties: { title: { type: "string" }, body: { type: "string" } } } }] },
} as const;

/** Entry `i`: about 200 bytes of JSON. */
export const benchEntry = (i: number): { title: string; body: string } => ({ title: `Entry ${i}`, body: `Written on day ${i}: ${"a quiet day, nothing much happened. ".repeat(4)}` });
