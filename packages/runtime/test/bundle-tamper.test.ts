/**
 * RELIABILITY P1, the bundle tamper matrix: every way of changing a signed bundle is refused, each
 * with the reason code of the check it fails (docs/bundle.md §5), and verification never changes
 * its input. One row, one expected code.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { deflateSync } from "fflate";
import type { ErrorCode } from "@lineup/protocol";
import { generatePublisherKey, packBundle, verifyBundle, type PublisherKey, type VerifyBundleOptions } from "../src/index.js";
import { encodeFileList } from "../src/app-lifecycle/bundle/file-list.js";
import { writeZip } from "../src/app-lifecycle/bundle/zip-write.js";
import { slack } from "../../../test/support/soak.js";
import {
  contentOf,
  deflated,
  entriesOf,
  flipByte,
  patchEntry,
  rawEntries,
  sampleFiles,
  sampleManifest,
  signedFromFiles,
  signedSample,
  stored,
  text,
  withContent,
  type Signed,
} from "./bundle-helpers.js";

interface Row {
  readonly name: string;
  readonly code: ErrorCode;
  readonly make: () => Promise<Uint8Array> | Uint8Array;
  readonly options?: Partial<VerifyBundleOptions>;
}

let bundle: Signed;
let deflatedBundle: Signed;
let otherKey: PublisherKey;

beforeAll(async () => {
  bundle = await signedSample();
  deflatedBundle = await signedSample({ compression: "deflate" });
  otherKey = await generatePublisherKey();
});

const verify = (bytes: Uint8Array, options: Partial<VerifyBundleOptions> = {}) => verifyBundle(bytes, { trustedKeys: bundle.trusted, ...options });

/** Every entry of the sample, and the code that flipping the first byte of its stored data must give. */
const FLIP_EXPECTATIONS: Record<string, ErrorCode> = {
  "app.js": "bundle_hash_mismatch",
  "assets/a.txt": "bundle_hash_mismatch",
  "assets/b.txt": "bundle_hash_mismatch",
  "assets/icon.png": "bundle_hash_mismatch",
  "index.html": "bundle_hash_mismatch",
  "lineup.app.json": "bundle_hash_mismatch",
  // The list is signed: any change to its bytes breaks the signature before it is even parsed.
  "lineup.files.json": "bundle_bad_signature",
  // `{` → `z`: the signature file is no longer JSON.
  "lineup.sig.json": "bundle_signature_malformed",
};

function flipRows(): Row[] {
  return Object.entries(FLIP_EXPECTATIONS).map(([path, code]) => ({
    name: `flip the first byte of ${path}`,
    code,
    make: () => {
      const entry = entriesOf(bundle.bytes).find((e) => e.path === path)!;
      return flipByte(bundle.bytes, entry.dataOffset);
    },
  }));
}

function middleRows(): Row[] {
  // A byte in the middle of each app file, changed in place (the archive stays well formed).
  return ["app.js", "assets/icon.png", "lineup.app.json"].map((path) => ({
    name: `flip a middle byte of ${path}`,
    code: "bundle_hash_mismatch" as const,
    make: () => {
      const entry = entriesOf(bundle.bytes).find((e) => e.path === path)!;
      return flipByte(bundle.bytes, entry.dataOffset + (entry.size >> 1), 0x20);
    },
  }));
}

const rows: Row[] = [
  ...flipRows(),
  ...middleRows(),
  {
    name: "re-zip a deflated file with one byte changed",
    code: "bundle_hash_mismatch",
    make: () => {
      const original = rawEntries(deflatedBundle.bytes).find((e) => e.path === "app.js")!;
      expect(original.method).toBe(8);
      const changed = text(`// extra\n`);
      return writeZip(rawEntries(deflatedBundle.bytes).map((e) => (e.path === "app.js" ? deflated("app.js", new Uint8Array([...changed, ...new Uint8Array(original.size - changed.length)])) : e)));
    },
  },
  {
    name: "replace a deflated entry's data with garbage",
    code: "bundle_entry_corrupt",
    make: () => writeZip(rawEntries(deflatedBundle.bytes).map((e) => (e.path === "app.js" ? { ...e, data: new Uint8Array(e.data.length).fill(0xff) } : e))),
  },
  {
    name: "a deflated entry that inflates to far more than it declares (lying zip bomb)",
    code: "bundle_entry_corrupt",
    make: () =>
      writeZip(rawEntries(deflatedBundle.bytes).map((e) => (e.path === "app.js" ? { ...e, data: deflateSync(new Uint8Array(16 * 1024 * 1024)) } : e))),
  },
  { name: "truncate to half", code: "bundle_not_archive", make: () => bundle.bytes.slice(0, bundle.bytes.length >> 1) },
  { name: "truncate the last byte", code: "bundle_not_archive", make: () => bundle.bytes.slice(0, -1) },
  { name: "truncate to 10 bytes", code: "bundle_not_archive", make: () => bundle.bytes.slice(0, 10) },
  { name: "empty input", code: "bundle_not_archive", make: () => new Uint8Array(0) },
  { name: "not a zip at all", code: "bundle_not_archive", make: () => text("<!doctype html><p>hello</p>".repeat(10)) },
  { name: "bytes prepended (a polyglot prefix)", code: "bundle_not_archive", make: () => new Uint8Array([...text("MZ prefix"), ...bundle.bytes]) },
  { name: "bytes appended", code: "bundle_not_archive", make: () => new Uint8Array([...bundle.bytes, 0]) },
  {
    name: "an archive comment",
    code: "bundle_not_archive",
    make: () => {
      const copy = new Uint8Array([...bundle.bytes, ...text("hi")]);
      new DataView(copy.buffer).setUint16(bundle.bytes.length - 2, 2, true);
      return copy;
    },
  },
  {
    name: "a local header that names another file than its central record",
    code: "bundle_not_archive",
    make: () => patchEntry(bundle.bytes, "app.js", (view, _central, local) => view.setUint8(local + 30, "b".charCodeAt(0))),
  },
  {
    name: "an encrypted entry",
    code: "bundle_not_archive",
    make: () =>
      patchEntry(bundle.bytes, "app.js", (view, central, local) => {
        view.setUint16(central + 8, 1, true);
        view.setUint16(local + 6, 1, true);
      }),
  },
  {
    name: "an unsupported compression method (LZMA)",
    code: "bundle_not_archive",
    make: () =>
      patchEntry(bundle.bytes, "app.js", (view, central, local) => {
        view.setUint16(central + 10, 14, true);
        view.setUint16(local + 8, 14, true);
      }),
  },
  {
    name: "two central records pointing at the same data",
    code: "bundle_not_archive",
    make: () => patchEntry(bundle.bytes, "index.html", (view, central) => view.setUint32(central + 42, 0, true)),
  },
  {
    name: "add an unlisted file",
    code: "bundle_file_list_mismatch",
    make: () => writeZip([...rawEntries(bundle.bytes), stored("extra.js", text("alert(1)"))]),
  },
  {
    name: "delete a listed file",
    code: "bundle_file_list_mismatch",
    make: () => writeZip(rawEntries(bundle.bytes).filter((e) => e.path !== "app.js")),
  },
  {
    name: "swap two files of different sizes",
    code: "bundle_file_list_mismatch",
    make: () => withContent(withContent(bundle.bytes, "app.js", contentOf(bundle.bytes, "index.html")), "index.html", contentOf(bundle.bytes, "app.js")),
  },
  {
    name: "swap two files of the same size",
    code: "bundle_hash_mismatch",
    make: () => withContent(withContent(bundle.bytes, "assets/a.txt", contentOf(bundle.bytes, "assets/b.txt")), "assets/b.txt", contentOf(bundle.bytes, "assets/a.txt")),
  },
  {
    name: "replace a file with one of another size",
    code: "bundle_file_list_mismatch",
    make: () => withContent(bundle.bytes, "app.js", text("steal()")),
  },
  {
    name: "the signature of another bundle's file list (same trusted key)",
    code: "bundle_bad_signature",
    make: async () => {
      const other = await signedSample({ manifest: sampleManifest({ version: "9.9.9" }) });
      return withContent(bundle.bytes, "lineup.sig.json", contentOf(other.bytes, "lineup.sig.json"));
    },
  },
  {
    name: "another bundle's file list with this bundle's signature",
    code: "bundle_bad_signature",
    make: async () => {
      const other = await signedSample({ manifest: sampleManifest({ version: "9.9.9" }) });
      return withContent(bundle.bytes, "lineup.files.json", contentOf(other.bytes, "lineup.files.json"));
    },
  },
  {
    name: "another manifest with its own honest list and this bundle's signature",
    code: "bundle_bad_signature",
    make: async () => {
      const other = await signedSample({ manifest: sampleManifest({ version: "9.9.9" }) });
      return writeZip(rawEntries(other.bytes).map((e) => (e.path === "lineup.sig.json" ? stored(e.path, contentOf(bundle.bytes, "lineup.sig.json")) : e)));
    },
  },
  {
    name: "signed with a key that is not trusted",
    code: "bundle_untrusted_key",
    make: async () => signedFromFiles(new Map([...sampleFiles(), ["lineup.app.json", text(JSON.stringify(sampleManifest()))]]), otherKey),
  },
  {
    name: "signed with another key but claiming the trusted key's id",
    code: "bundle_bad_signature",
    make: async () => {
      const forged = await signedFromFiles(new Map([...sampleFiles(), ["lineup.app.json", text(JSON.stringify(sampleManifest()))]]), otherKey);
      const sig = JSON.parse(new TextDecoder().decode(contentOf(forged, "lineup.sig.json"))) as Record<string, string>;
      return withContent(forged, "lineup.sig.json", text(JSON.stringify({ ...sig, key_id: bundle.key.keyId })));
    },
  },
  {
    name: "a signature that is not 64 bytes",
    code: "bundle_signature_malformed",
    make: () => withContent(bundle.bytes, "lineup.sig.json", text(JSON.stringify({ alg: "Ed25519", key_id: bundle.key.keyId, signature: "AAAA" }))),
  },
  {
    name: "another signature algorithm",
    code: "bundle_signature_malformed",
    make: () => {
      const sig = JSON.parse(new TextDecoder().decode(contentOf(bundle.bytes, "lineup.sig.json"))) as Record<string, string>;
      return withContent(bundle.bytes, "lineup.sig.json", text(JSON.stringify({ ...sig, alg: "RS256" })));
    },
  },
  { name: "no signature", code: "bundle_missing_signature", make: () => writeZip(rawEntries(bundle.bytes).filter((e) => e.path !== "lineup.sig.json")) },
  { name: "no file list", code: "bundle_missing_file_list", make: () => writeZip(rawEntries(bundle.bytes).filter((e) => e.path !== "lineup.files.json")) },
  { name: "a `../` path", code: "bundle_unsafe_path", make: () => writeZip([...rawEntries(bundle.bytes), stored("../evil.js", text("x"))]) },
  { name: "a nested `..` segment", code: "bundle_unsafe_path", make: () => writeZip([...rawEntries(bundle.bytes), stored("assets/../../evil.js", text("x"))]) },
  { name: "an absolute path", code: "bundle_unsafe_path", make: () => writeZip([...rawEntries(bundle.bytes), stored("/etc/passwd", text("x"))]) },
  { name: "a backslash path", code: "bundle_unsafe_path", make: () => writeZip([...rawEntries(bundle.bytes), stored("..\\evil.js", text("x"))]) },
  { name: "a drive letter", code: "bundle_unsafe_path", make: () => writeZip([...rawEntries(bundle.bytes), stored("C:/evil.js", text("x"))]) },
  { name: "a NUL in a name", code: "bundle_unsafe_path", make: () => writeZip([...rawEntries(bundle.bytes), stored("index.html\0.js", text("x"))]) },
  { name: "a directory entry", code: "bundle_unsafe_path", make: () => writeZip([...rawEntries(bundle.bytes), stored("assets/", new Uint8Array(0))]) },
  {
    name: "a name that is not UTF-8",
    code: "bundle_unsafe_path",
    make: () => patchEntry(writeZip([...rawEntries(bundle.bytes), stored("zz.js", text("x"))]), "zz.js", (view, central, local) => {
      view.setUint8(central + 46, 0xff);
      view.setUint8(local + 30, 0xff);
    }),
  },
  { name: "a hidden file", code: "bundle_unsafe_path", make: () => writeZip([...rawEntries(bundle.bytes), stored(".htaccess", text("x"))]) },
  {
    name: "a symbolic link entry (Unix mode 120777)",
    code: "bundle_unsafe_path",
    make: () =>
      patchEntry(writeZip([...rawEntries(bundle.bytes), stored("link.js", text("/etc/passwd"))]), "link.js", (view, central) => {
        view.setUint16(central + 4, (3 << 8) | 20, true);
        view.setUint32(central + 38, (0o120777 << 16) >>> 0, true);
      }),
  },
  {
    name: "a listed file turned into a symbolic link",
    code: "bundle_unsafe_path",
    make: () =>
      patchEntry(bundle.bytes, "app.js", (view, central) => {
        view.setUint16(central + 4, (3 << 8) | 20, true);
        view.setUint32(central + 38, (0o120644 << 16) >>> 0, true);
      }),
  },
  { name: "the same path twice", code: "bundle_duplicate_path", make: () => writeZip([...rawEntries(bundle.bytes), stored("app.js", text("second"))]) },
  { name: "paths differing only in case", code: "bundle_duplicate_path", make: () => writeZip([...rawEntries(bundle.bytes), stored("App.js", text("second"))]) },
  { name: "oversize (one byte over the limit)", code: "bundle_too_large", make: () => bundle.bytes, options: { maxBytes: 0 } },
  {
    name: "zip bomb: declared sizes over the unpacked limit",
    code: "bundle_unpacked_too_large",
    make: () => writeZip([...rawEntries(bundle.bytes), deflated("bomb.bin", new Uint8Array(1 << 20), 300 * 1024 * 1024)]),
  },
  { name: "more entries than the limit", code: "bundle_too_many_files", make: () => bundle.bytes, options: { maxFiles: 7 } },
  {
    name: "a signed list that is not canonical (pretty-printed)",
    code: "bundle_file_list_malformed",
    make: async () => {
      const list = JSON.parse(new TextDecoder().decode(contentOf(bundle.bytes, "lineup.files.json"))) as unknown;
      const unsigned = writeZip([...rawEntries(bundle.bytes).filter((e) => e.path !== "lineup.sig.json" && e.path !== "lineup.files.json"), stored("lineup.files.json", text(JSON.stringify(list, null, 2)))]);
      return resignRaw(unsigned);
    },
  },
  {
    name: "a signed list naming an unsafe path",
    code: "bundle_file_list_malformed",
    make: async () => {
      const unsigned = writeZip([
        ...rawEntries(bundle.bytes).filter((e) => e.path !== "lineup.sig.json" && e.path !== "lineup.files.json"),
        stored("lineup.files.json", encodeFileList([{ path: "../x", size: 1, sha256: "0".repeat(64) }])),
      ]);
      return resignRaw(unsigned);
    },
  },
  {
    name: "a signed bundle whose manifest is invalid",
    code: "bundle_manifest_invalid",
    make: () => signedFromFiles(new Map([...sampleFiles(), ["lineup.app.json", text(JSON.stringify(sampleManifest({ app_scope: "Not A Scope" })))]]), bundle.key),
  },
  {
    name: "a signed bundle whose manifest is not JSON",
    code: "bundle_manifest_invalid",
    make: () => signedFromFiles(new Map([...sampleFiles(), ["lineup.app.json", text("{ nope")]]), bundle.key),
  },
  {
    name: "a signed bundle without a manifest",
    code: "bundle_manifest_invalid",
    make: () => signedFromFiles(sampleFiles(), bundle.key),
  },
  {
    name: "a signed bundle whose entrypoint page is missing",
    code: "bundle_manifest_invalid",
    make: () => {
      const files = sampleFiles();
      files.delete("index.html");
      return signedFromFiles(new Map([...files, ["lineup.app.json", text(JSON.stringify(sampleManifest()))]]), bundle.key);
    },
  },
  {
    name: "an app built for Runtime SDK API 2",
    code: "bundle_incompatible",
    make: () =>
      signedFromFiles(new Map([...sampleFiles(), ["lineup.app.json", text(JSON.stringify(sampleManifest({ runtime_sdk: { api_version: "2", required_features: [] } })))]]), bundle.key),
  },
  {
    name: "an app requiring a feature this host lacks",
    code: "bundle_incompatible",
    make: () => bundle.bytes,
    options: { hostFeatures: ["app.lifecycle.v1", "app.tools.v1"] },
  },
  {
    name: "an app whose API version this host does not implement",
    code: "bundle_incompatible",
    make: () => bundle.bytes,
    options: { apiVersions: [] },
  },
];

/** Re-signs an unsigned archive with the trusted key, skipping signBundle's own checks. */
async function resignRaw(unsigned: Uint8Array): Promise<Uint8Array> {
  const { signBytes, encodeSignatureFile, importSigningKey } = await import("../src/app-lifecycle/bundle/signature.js");
  const signer = await importSigningKey(bundle.key.privateKey);
  if (!signer.ok) throw new Error("key");
  const list = contentOf(unsigned, "lineup.files.json");
  return writeZip([...rawEntries(unsigned), stored("lineup.sig.json", encodeSignatureFile(signer.value.keyId, await signBytes(signer.value.key, list)))]);
}

describe("bundle tamper matrix (RELIABILITY P1)", () => {
  it("accepts the untouched bundle, stored and deflated", async () => {
    const plain = await verify(bundle.bytes);
    expect(plain.ok ? plain.value.manifest.app_scope : plain.error).toBe("sample-board");
    const compressed = await verify(deflatedBundle.bytes);
    expect(compressed.ok ? compressed.value.manifest.app_scope : compressed.error).toBe("sample-board");
  });

  it.each(rows)("refuses: $name → $code", async (row) => {
    const input = await row.make();
    const before = input.slice();
    const result = await verify(input, row.options);
    expect(result.ok ? "accepted" : result.error.code).toBe(row.code);
    // The same refusal when the archive's own digest is not asked for (re-verification before a launch).
    const relaunch = await verify(input, { ...row.options, archiveDigest: false });
    expect(relaunch.ok ? "accepted" : relaunch.error.code).toBe(row.code);
    // Verification reads its input and never changes it.
    expect(input).toEqual(before);
  });

  it("covers every bundle code with at least one row, and flips every entry of the sample", () => {
    const covered = new Set(rows.map((row) => row.code));
    const bundleCodes = [
      "bundle_too_large",
      "bundle_not_archive",
      "bundle_too_many_files",
      "bundle_unsafe_path",
      "bundle_duplicate_path",
      "bundle_unpacked_too_large",
      "bundle_missing_file_list",
      "bundle_missing_signature",
      "bundle_signature_malformed",
      "bundle_untrusted_key",
      "bundle_bad_signature",
      "bundle_file_list_malformed",
      "bundle_file_list_mismatch",
      "bundle_entry_corrupt",
      "bundle_hash_mismatch",
      "bundle_manifest_invalid",
      "bundle_incompatible",
    ];
    expect([...covered].sort()).toEqual([...bundleCodes].sort());
    expect(Object.keys(FLIP_EXPECTATIONS).sort()).toEqual(entriesOf(bundle.bytes).map((e) => e.path).sort());
  });

  it("refuses a flip of any single byte, except in the fields a verifier ignores, which change nothing it returns", async () => {
    // docs/bundle.md §2: DOS time and date, "version made by", internal and external attributes
    // (beyond the file type) carry no meaning for a bundle and are not signed.
    const view = new DataView(bundle.bytes.buffer);
    const centralOffset = view.getUint32(bundle.bytes.length - 22 + 16, true);
    const ignored = new Set<number>();
    for (const entry of entriesOf(bundle.bytes)) {
      const local = entry.dataOffset - 30 - entry.path.length;
      for (const at of [10, 11, 12, 13]) ignored.add(local + at);
    }
    for (let central = centralOffset; central < bundle.bytes.length - 22; central += 46 + view.getUint16(central + 28, true)) {
      for (const at of [4, 5, 12, 13, 14, 15, 36, 37, 38, 39, 40, 41]) ignored.add(central + at);
    }
    const original = await verify(bundle.bytes);
    if (!original.ok) throw new Error(original.error.message);
    const stray: string[] = [];
    let refused = 0;
    for (const mask of [0x01, 0x80]) {
      for (let at = 0; at < bundle.bytes.length; at++) {
        const result = await verify(flipByte(bundle.bytes, at, mask));
        if (!result.ok) {
          refused++;
          continue;
        }
        if (!ignored.has(at)) stray.push(`offset ${at} mask ${mask}`);
        expect({ ...result.value, sha256: "" }).toEqual({ ...original.value, sha256: "" });
        expect(result.value.sha256).not.toBe(original.value.sha256);
      }
    }
    expect(stray).toEqual([]);
    expect(refused).toBeGreaterThan(2 * (bundle.bytes.length - ignored.size) - 1);
    // Thousands of verifications: 15-20 s on 2 loaded cores, so more than the default 20 s.
  }, slack(60_000));

  it("packBundle refuses the same unsafe inputs before writing anything", async () => {
    const manifest = sampleManifest();
    const cases: Array<[Map<string, Uint8Array>, ErrorCode]> = [
      [new Map([...sampleFiles(), ["../x.js", text("x")]]), "bundle_unsafe_path"],
      [new Map([...sampleFiles(), ["lineup.sig.json", text("{}")]]), "bundle_unsafe_path"],
      [new Map([...sampleFiles(), ["INDEX.html", text("x")]]), "bundle_duplicate_path"],
      [new Map([...sampleFiles(), ["lineup.app.json", text("{}")]]), "bundle_duplicate_path"],
    ];
    for (const [files, code] of cases) {
      const packed = await packBundle({ manifest, files });
      expect(packed.ok ? "packed" : packed.error.code).toBe(code);
    }
    const invalid = await packBundle({ manifest: sampleManifest({ version: "one" }), files: sampleFiles() });
    expect(invalid.ok ? "packed" : invalid.error.code).toBe("bundle_manifest_invalid");
  });
});
