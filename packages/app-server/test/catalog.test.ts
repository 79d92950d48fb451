/**
 * The catalog of signed releases: a device publishes a signed bundle chunk by chunk, the server verifies
 * it against the publisher key on the last chunk, lists each app's version history and serves the
 * bundle back byte for byte. Bad bundles, another publisher's key, older versions and agents are refused,
 * and a refusal publishes nothing.
 */
import { createHash } from "node:crypto";
import { generatePublisherKey, packBundle, signBundle, type PublisherKey } from "@lineup/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { key, RpcError, startTestServer, TestClient, type TestServer } from "./helpers.js";

const CHUNK = 4096;
let server: TestServer;
let device: TestClient;
let agent: TestClient;
let publisher: PublisherKey;
let stranger: PublisherKey;

function manifest(version: string, appScope = "notes-catalog"): Record<string, unknown> {
  return {
    format: "lineup.app.v1",
    app_scope: appScope,
    version,
    name: "Catalog Notes",
    description: "Notes from the catalog",
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1"] },
    entrypoints: [{ id: "main", kind: "primary", path: "index.html" }],
  };
}

/** A signed bundle larger than one chunk, so publishing takes several. */
async function bundle(version: string, signer: PublisherKey, appScope?: string): Promise<Buffer> {
  const filler = Array.from({ length: 400 }, (_, i) => `<p>line ${i} of version ${version}</p>`).join("\n");
  const packed = await packBundle({ manifest: manifest(version, appScope), files: new Map([["index.html", new TextEncoder().encode(`<!doctype html><html><body>${filler}</body></html>`)]]) });
  if (!packed.ok) throw new Error(packed.error.message);
  const signed = await signBundle(packed.value, signer.privateKey);
  if (!signed.ok) throw new Error(signed.error.message);
  return Buffer.from(signed.value);
}

/** Publishes `bytes` in CHUNK-sized requests; the last answer. */
async function publish(client: TestClient, bytes: Buffer, signer: PublisherKey, sha256 = createHash("sha256").update(bytes).digest("hex")) {
  const upload = key("upload");
  let last: Record<string, unknown> = {};
  for (let offset = 0; offset < bytes.byteLength; offset += CHUNK) {
    const data = bytes.subarray(offset, offset + CHUNK).toString("base64");
    last = await client.call("catalog/publish", { idempotency_key: key(), upload_id: upload, size: bytes.byteLength, sha256, publisher: signer.trustedKey, offset, data });
  }
  return last;
}

async function refusal(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(RpcError);
  return (error as RpcError).lineupCode;
}

async function download(client: TestClient, appScope: string, version: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let offset = 0; ; ) {
    const chunk = await client.call("catalog/read", { app_scope: appScope, version, offset, length: CHUNK });
    const bytes = Buffer.from(chunk.data, "base64");
    parts.push(bytes);
    offset += bytes.byteLength;
    if (chunk.eof) return Buffer.concat(parts);
  }
}

beforeAll(async () => {
  server = await startTestServer({ limits: { max_chunk_bytes: CHUNK } });
  const creds = server.devCredentials!;
  [device, agent] = await Promise.all([TestClient.open(server, creds.device_token), TestClient.open(server, creds.agent_token)]);
  [publisher, stranger] = await Promise.all([generatePublisherKey(), generatePublisherKey()]);
}, 30_000);
afterAll(async () => {
  await device.close();
  await agent.close();
  await server.dispose();
});

describe("catalog", () => {
  it("publishes a signed release in chunks, lists it and serves the same bytes", async () => {
    const v1 = await bundle("1.0.0", publisher);
    expect(v1.byteLength).toBeGreaterThan(2 * CHUNK);
    const published = await publish(device, v1, publisher);
    expect(published).toMatchObject({ complete: true, received: v1.byteLength });
    const release = { app_scope: "notes-catalog", version: "1.0.0", name: "Catalog Notes", description: "Notes from the catalog", publisher: publisher.trustedKey, size: v1.byteLength, sha256: createHash("sha256").update(v1).digest("hex") };
    expect(published["release"]).toMatchObject(release);
    expect((await device.call("catalog/list", {})).releases).toEqual([expect.objectContaining(release)]);
    expect((await download(device, "notes-catalog", "1.0.0")).equals(v1)).toBe(true);
    // Every device connection hears of it once it committed (the publisher's own included); agents do not.
    const told = await device.waitFor((f) => f.method === "catalog/released");
    expect(told.params).toEqual({ release: expect.objectContaining(release) });
    expect(agent.frames.some((f) => f.method === "catalog/released")).toBe(false);
  });

  it("keeps the version history, newest first", async () => {
    await publish(device, await bundle("1.1.0", publisher), publisher);
    await publish(device, await bundle("0.1.0", publisher, "other-catalog-app"), publisher);
    const all = (await device.call("catalog/list", {})).releases.map((r: { app_scope: string; version: string }) => `${r.app_scope}@${r.version}`);
    expect(all).toEqual(["notes-catalog@1.1.0", "notes-catalog@1.0.0", "other-catalog-app@0.1.0"]);
    const one = (await device.call("catalog/list", { app_scope: "other-catalog-app" })).releases;
    expect(one.map((r: { version: string }) => r.version)).toEqual(["0.1.0"]);
    // A page of one app holds that app's whole history and says where the next page starts; the last says nothing.
    const first = await device.call("catalog/list", { limit: 1 });
    expect(first.releases.map((r: { version: string }) => r.version)).toEqual(["1.1.0", "1.0.0"]);
    expect(first.next_after).toBe("notes-catalog");
    const second = await device.call("catalog/list", { limit: 1, after: first.next_after });
    expect(second.releases.map((r: { app_scope: string }) => r.app_scope)).toEqual(["other-catalog-app"]);
    expect(second.next_after).toBeUndefined();
    expect(await refusal(device.call("catalog/list", { limit: 1000 }))).toBe("invalid_params");
  });

  it("publishes a bundle that fits in one chunk", async () => {
    const small = await packBundle({ manifest: manifest("1.0.0", "one-chunk-app"), files: new Map([["index.html", new TextEncoder().encode("<!doctype html><p>small</p>")]]) });
    if (!small.ok) throw new Error(small.error.message);
    const signed = await signBundle(small.value, publisher.privateKey);
    if (!signed.ok) throw new Error(signed.error.message);
    const bytes = Buffer.from(signed.value);
    expect(bytes.byteLength).toBeLessThanOrEqual(CHUNK);
    expect(await publish(device, bytes, publisher)).toMatchObject({ complete: true, release: { app_scope: "one-chunk-app", version: "1.0.0" } });
  });

  it("refuses a tampered bundle, another key, an older or repeated version and a wrong digest, and lists none of them", async () => {
    const good = await bundle("2.0.0", publisher);
    const tampered = Buffer.from(good);
    const at = tampered.indexOf("line 7 of version");
    tampered[at] = "L".charCodeAt(0);
    expect(await refusal(publish(device, tampered, publisher))).toBe("bundle_hash_mismatch");
    expect(await refusal(publish(device, await bundle("2.0.0", stranger), publisher))).toBe("bundle_untrusted_key");
    expect(await refusal(publish(device, await bundle("2.0.0", stranger), stranger))).toBe("forbidden");
    expect(await refusal(publish(device, await bundle("1.0.5", publisher), publisher))).toBe("bundle_downgrade");
    expect(await refusal(publish(device, await bundle("1.1.0", publisher), publisher))).toBe("invalid_state");
    expect(await refusal(publish(device, good, publisher, "0".repeat(64)))).toBe("invalid_params");
    const versions = (await device.call("catalog/list", { app_scope: "notes-catalog" })).releases.map((r: { version: string }) => r.version);
    expect(versions).toEqual(["1.1.0", "1.0.0"]);
  });

  it("replays a repeated chunk by its idempotency key and refuses a chunk out of order", async () => {
    const bytes = await bundle("3.0.0", publisher);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const first = { idempotency_key: key(), upload_id: "replayed", size: bytes.byteLength, sha256, publisher: publisher.trustedKey, offset: 0, data: bytes.subarray(0, CHUNK).toString("base64") };
    const answer = await device.call("catalog/publish", first);
    expect(await device.call("catalog/publish", first)).toEqual(answer);
    expect(await refusal(device.call("catalog/publish", { ...first, idempotency_key: key(), offset: 2 * CHUNK, data: bytes.subarray(2 * CHUNK, 3 * CHUNK).toString("base64") }))).toBe("invalid_state");
    // A last chunk past the declared size publishes nothing, and the upload still takes the right one.
    let offset = CHUNK;
    for (; offset + CHUNK < bytes.byteLength; offset += CHUNK) {
      await device.call("catalog/publish", { ...first, idempotency_key: key(), offset, data: bytes.subarray(offset, offset + CHUNK).toString("base64") });
    }
    const overrun = Buffer.concat([bytes.subarray(offset), Buffer.from("more")]).toString("base64");
    expect(await refusal(device.call("catalog/publish", { ...first, idempotency_key: key(), offset, data: overrun }))).toBe("invalid_params");
    const last = await device.call("catalog/publish", { ...first, idempotency_key: key(), offset, data: bytes.subarray(offset).toString("base64") });
    expect(last).toMatchObject({ complete: true, release: { version: "3.0.0" } });
  });

  it("answers not_found for a release it does not hold, and is a device's face only", async () => {
    expect(await refusal(device.call("catalog/read", { app_scope: "notes-catalog", version: "9.9.9" }))).toBe("not_found");
    expect(await refusal(agent.call("catalog/list", {}))).toBe("method_not_found");
  });
});
