/**
 * Pack → sign → verify: what goes in comes out, the same inputs give the same bytes, the archive
 * has the documented layout, and the Ed25519 signatures made through WebCrypto are ordinary
 * Ed25519 (Node's own `crypto` verifies ours, and ours verifies Node's).
 */
import { createHash, createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { zipSync } from "fflate";
import { bytesToBase64 } from "@lineup/protocol";
import { generatePublisherKey, packBundle, signBundle, verifyBundle } from "../src/index.js";
import { contentOf, entriesOf, rawEntries, sampleFiles, sampleManifest, signedSample, stored, testKey, text, withContent } from "./bundle-helpers.js";
import { writeZip } from "../src/app-lifecycle/bundle/zip-write.js";

const nodeSha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const jwkPublicKey = (raw: Uint8Array) => createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(raw).toString("base64url") }, format: "jwk" });

async function pack(files = sampleFiles(), compression: "store" | "deflate" = "store") {
  const packed = await packBundle({ manifest: sampleManifest(), files, compression });
  if (!packed.ok) throw new Error(packed.error.message);
  return packed.value;
}

describe("bundle round trip", () => {
  it.each(["store", "deflate"] as const)("returns exactly what was packed (%s)", async (compression) => {
    const { bytes, key, trusted } = await signedSample({ compression });
    const result = await verifyBundle(bytes, { trustedKeys: trusted });
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    const verified = result.value;
    const expected = new Map([...sampleFiles(), ["lineup.app.json", text(`${JSON.stringify(sampleManifest(), null, 2)}\n`)]]);
    expect([...verified.files.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [path, content] of expected) expect(verified.files.get(path)).toEqual(content);
    expect(verified.manifest).toEqual(sampleManifest());
    expect(verified.keyId).toBe(key.keyId);
    expect(verified.sha256).toBe(nodeSha256(bytes));
    expect(verified.fileListSha256).toBe(nodeSha256(contentOf(bytes, "lineup.files.json")));
    expect(verified.size).toBe(bytes.length);
    expect(verified.fileList.map((f) => f.path)).toEqual([...expected.keys()].sort());
    for (const file of verified.fileList) {
      expect(file.size).toBe(expected.get(file.path)!.length);
      expect(file.sha256).toBe(nodeSha256(expected.get(file.path)!));
    }
  });

  it("archiveDigest: false returns the same verified contents without the archive's SHA-256", async () => {
    const { bytes, trusted } = await signedSample();
    const full = await verifyBundle(bytes, { trustedKeys: trusted });
    const light = await verifyBundle(bytes, { trustedKeys: trusted, archiveDigest: false });
    if (!full.ok || !light.ok) throw new Error("verification failed");
    expect("sha256" in light.value).toBe(false);
    const { sha256, ...rest } = full.value;
    expect(sha256).toBe(nodeSha256(bytes));
    expect(light.value).toEqual(rest);
  });

  it("deflate mode compresses text and stores already-compressed formats", async () => {
    const entries = entriesOf(await pack(sampleFiles(), "deflate"));
    const method = (path: string) => entries.find((e) => e.path === path)!.method;
    expect(method("app.js")).toBe(8);
    expect(method("assets/icon.png")).toBe(0);
    expect(method("lineup.files.json")).toBe(0);
    expect(entriesOf(await pack()).every((e) => e.method === 0)).toBe(true);
  });
});

describe("determinism", () => {
  it.each(["store", "deflate"] as const)("the same inputs give byte-identical archives, whatever the map order (%s)", async (compression) => {
    const reversed = new Map([...sampleFiles()].reverse());
    const a = await pack(sampleFiles(), compression);
    const b = await pack(reversed, compression);
    expect(b).toEqual(a);
    const key = await testKey();
    const signedA = await signBundle(a, key.privateKey);
    const signedB = await signBundle(b, key.privateKey);
    expect(signedA.ok && signedB.ok).toBe(true);
    if (!signedA.ok || !signedB.ok) return;
    expect(signedB.value).toEqual(signedA.value);
    // Signing again replaces the signature with the same one.
    const again = await signBundle(signedA.value, key.privateKey);
    expect(again.ok ? again.value : again.error).toEqual(signedA.value);
    // The signed content's identity does not depend on how the archive was compressed.
    const other = compression === "store" ? await pack(sampleFiles(), "deflate") : await pack(sampleFiles(), "store");
    expect(contentOf(other, "lineup.files.json")).toEqual(contentOf(a, "lineup.files.json"));
  });

  it("writes the documented layout: sorted entries from offset 0, fixed date, no extras, no attributes", async () => {
    const { bytes } = await signedSample();
    const entries = entriesOf(bytes);
    const paths = entries.map((e) => e.path);
    expect(paths).toEqual([...paths].sort());
    expect(paths).toContain("lineup.files.json");
    expect(paths).toContain("lineup.sig.json");
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    expect(view.getUint32(0, true)).toBe(0x04034b50);
    for (const entry of entries) {
      const local = entry.dataOffset - 30 - entry.path.length;
      expect(view.getUint16(local + 6, true)).toBe(0); // flags
      expect(view.getUint16(local + 10, true)).toBe(0); // time
      expect(view.getUint16(local + 12, true)).toBe(0x21); // 1980-01-01
      expect(view.getUint16(local + 28, true)).toBe(0); // extra length
    }
    const list = JSON.parse(new TextDecoder().decode(contentOf(bytes, "lineup.files.json"))) as { format: string; files: Array<{ path: string }> };
    expect(list.format).toBe("lineup.files.v1");
    expect(list.files.map((f) => f.path)).toEqual(paths.filter((p) => p !== "lineup.files.json" && p !== "lineup.sig.json"));
  });
});

describe("Ed25519 through WebCrypto is plain Ed25519", () => {
  it("Node's crypto.verify accepts the bundle's signature over lineup.files.json", async () => {
    const { bytes, key } = await signedSample();
    const signature = JSON.parse(new TextDecoder().decode(contentOf(bytes, "lineup.sig.json"))) as { alg: string; key_id: string; signature: string };
    expect(signature.alg).toBe("Ed25519");
    expect(signature.key_id).toBe(nodeSha256(key.publicKeyRaw));
    const list = contentOf(bytes, "lineup.files.json");
    expect(nodeVerify(null, list, jwkPublicKey(key.publicKeyRaw), Buffer.from(signature.signature, "base64"))).toBe(true);
    expect(nodeVerify(null, Buffer.concat([list, Buffer.from(" ")]), jwkPublicKey(key.publicKeyRaw), Buffer.from(signature.signature, "base64"))).toBe(false);
  });

  it("verifyBundle accepts a signature made by Node's crypto.sign with the same PKCS #8 key", async () => {
    const { bytes, key, trusted } = await signedSample();
    const list = contentOf(bytes, "lineup.files.json");
    const privateKey = createPrivateKey({ key: Buffer.from(key.privateKey), format: "der", type: "pkcs8" });
    const signature = bytesToBase64(new Uint8Array(nodeSign(null, list, privateKey)));
    const resigned = withContent(bytes, "lineup.sig.json", text(JSON.stringify({ alg: "Ed25519", key_id: key.keyId, signature })));
    const result = await verifyBundle(resigned, { trustedKeys: trusted });
    expect(result.ok ? result.value.keyId : result.error).toBe(key.keyId);
  });

  it("generatePublisherKey returns a 32-byte public key, its SHA-256 id and a PKCS #8 key Node can read", async () => {
    const key = await generatePublisherKey();
    expect(key.publicKeyRaw.length).toBe(32);
    expect(key.keyId).toBe(nodeSha256(key.publicKeyRaw));
    expect(key.trustedKey).toEqual({ key_id: key.keyId, public_key: Buffer.from(key.publicKeyRaw).toString("base64") });
    const nodeKey = createPrivateKey({ key: Buffer.from(key.privateKey), format: "der", type: "pkcs8" });
    expect(nodeKey.asymmetricKeyType).toBe("ed25519");
    const raw = createPublicKey(nodeKey).export({ format: "jwk" }).x;
    expect(raw).toBe(Buffer.from(key.publicKeyRaw).toString("base64url"));
    expect((await generatePublisherKey()).keyId).not.toBe(key.keyId);
  });
});

describe("interoperability and refusals around signing", () => {
  it("verifies a bundle whose zip was written by another writer (fflate zipSync, real timestamps)", async () => {
    const { bytes, trusted } = await signedSample();
    const foreign = zipSync(
      Object.fromEntries(entriesOf(bytes).map((e) => [e.path, [contentOf(bytes, e.path), { level: e.path.endsWith(".js") ? 6 : 0, mtime: "2026-11-30T06:00:00" }]])),
    );
    expect(foreign).not.toEqual(bytes);
    const result = await verifyBundle(foreign, { trustedKeys: trusted });
    expect(result.ok ? result.value.manifest.app_scope : result.error).toBe("sample-board");
  });

  it("signBundle signs only what matches its list, and only with an Ed25519 PKCS #8 key", async () => {
    const key = await testKey();
    const packed = await pack();
    const tampered = withContent(packed, "assets/a.txt", contentOf(packed, "assets/b.txt"));
    const refused = await signBundle(tampered, key.privateKey);
    expect(refused.ok ? "signed" : refused.error.code).toBe("bundle_hash_mismatch");
    const unlisted = await signBundle(writeZip([...rawEntries(packed), stored("extra.js", text("x"))]), key.privateKey);
    expect(unlisted.ok ? "signed" : unlisted.error.code).toBe("bundle_file_list_mismatch");
    const badKey = await signBundle(packed, text("not a key"));
    expect(badKey.ok ? "signed" : badKey.error.code).toBe("invalid_params");
    const notBundle = await signBundle(text("hello"), key.privateKey);
    expect(notBundle.ok ? "signed" : notBundle.error.code).toBe("bundle_not_archive");
  });

  it("refuses a misconfigured trust list instead of skipping the entry", async () => {
    const { bytes, key } = await signedSample();
    const wrongId = await verifyBundle(bytes, { trustedKeys: [{ key_id: "0".repeat(64), public_key: key.trustedKey.public_key }] });
    expect(wrongId.ok ? "accepted" : [wrongId.error.code, wrongId.error.path]).toEqual(["invalid_params", "/trustedKeys/0/key_id"]);
    const shortKey = await verifyBundle(bytes, { trustedKeys: [{ key_id: key.keyId, public_key: "AAAA" }] });
    expect(shortKey.ok ? "accepted" : [shortKey.error.code, shortKey.error.path]).toEqual(["invalid_params", "/trustedKeys/0/public_key"]);
    const none = await verifyBundle(bytes, { trustedKeys: [] });
    expect(none.ok ? "accepted" : none.error.code).toBe("bundle_untrusted_key");
  });
});
