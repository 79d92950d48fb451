/**
 * The Node helpers behind `lineup keygen | pack | sign | verify`, and the golden bundle: packing
 * fixtures/bundles/hello and signing it with the fixture key must give exactly the committed
 * bytes — the reference a packer in another language checks itself against.
 */
import { execFileSync } from "node:child_process";
import { createPrivateKey } from "node:crypto";
import { mkdtemp, readFile, rm, stat, symlink, writeFile, mkdir, cp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keygenToFiles, packDirectory, readDirectoryFiles, signFile, verifyFile } from "../src/node/index.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/bundles/", import.meta.url));
const GOLDEN = join(FIXTURES, "hello-board-1.0.0.lineup");

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lineup-bundle-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("golden bundle", () => {
  it("pack + sign of fixtures/bundles/hello with the fixture key reproduces the committed bundle byte for byte", async () => {
    const out = join(dir, "hello.lineup");
    const packed = await packDirectory(join(FIXTURES, "hello"), out);
    expect(packed.ok ? packed.value.files : packed.error).toBe(6);
    const signed = await signFile(out, join(FIXTURES, "publisher.key"));
    expect(signed.ok).toBe(true);
    expect(new Uint8Array(await readFile(out))).toEqual(new Uint8Array(await readFile(GOLDEN)));
  });

  it("verifyFile accepts the golden bundle with the fixture's trusted key", async () => {
    const result = await verifyFile(GOLDEN, join(FIXTURES, "publisher.pub.json"));
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    expect(result.value.manifest.app_scope).toBe("hello-board");
    expect(result.value.fileList.map((f) => f.path)).toEqual(["app.js", "assets/board.css", "assets/icon.png", "index.html", "lineup.app.json", "pages/settings.html"]);
  });
});

describe("a standard unzipper reads our bundles", () => {
  // Debian's Info-ZIP `unzip`: a bundle is an ordinary ZIP archive, whatever tools a publisher or reviewer uses.
  const unzip = (...args: string[]): Buffer => execFileSync("unzip", args, { maxBuffer: 16 * 1024 * 1024 });
  const HELLO_FILES = ["app.js", "assets/board.css", "assets/icon.png", "index.html", "lineup.app.json", "pages/settings.html"];

  for (const compression of ["store", "deflate"] as const) {
    it(`tests clean and yields every file byte for byte, packed with ${compression} and signed`, async () => {
      const out = join(dir, `hello-${compression}.lineup`);
      const source = join(dir, "hello");
      await cp(join(FIXTURES, "hello"), source, { recursive: true });
      // A larger text file, so deflate really deflates.
      await writeFile(join(source, "assets", "big.css"), ".row { color: red; }\n".repeat(4_000));
      const packed = await packDirectory(source, out, { compression });
      expect(packed.ok).toBe(true);
      expect((await signFile(out, join(FIXTURES, "publisher.key"))).ok).toBe(true);

      expect(unzip("-tq", out).toString()).toMatch(/^No errors detected/);
      const listed = unzip("-Z1", out).toString().trim().split("\n");
      for (const path of [...HELLO_FILES, "assets/big.css"]) {
        expect(listed, path).toContain(path);
        // The packer writes the manifest itself (with the file list); every other file is the publisher's bytes.
        if (path === "lineup.app.json") expect(JSON.parse(unzip("-p", out, path).toString())).toMatchObject({ app_scope: "hello-board" });
        else expect(new Uint8Array(unzip("-p", out, path)), path).toEqual(new Uint8Array(await readFile(join(source, path))));
      }
    });
  }

  it("tests clean on the committed golden bundle", () => {
    expect(unzip("-tq", GOLDEN).toString()).toMatch(/^No errors detected/);
  });
});

describe("keygen, pack, sign, verify on files", () => {
  it("keygenToFiles writes a 0600 PEM key OpenSSL/Node can read and a trusted-key entry, and never overwrites", async () => {
    const made = await keygenToFiles(join(dir, "keys"));
    if (!made.ok) throw new Error(made.error.message);
    expect((await stat(made.value.privateKeyFile)).mode & 0o777).toBe(0o600);
    const pem = await readFile(made.value.privateKeyFile, "utf8");
    expect(createPrivateKey(pem).asymmetricKeyType).toBe("ed25519");
    expect(JSON.parse(await readFile(made.value.publicKeyFile, "utf8"))).toEqual(made.value.trustedKey);
    const again = await keygenToFiles(join(dir, "keys"));
    expect(again.ok ? "overwrote" : again.error.code).toBe("invalid_params");
    expect(await readFile(made.value.privateKeyFile, "utf8")).toBe(pem);
  });

  it("a fresh key packs, signs and verifies; another key's trust file refuses it", async () => {
    const keys = await keygenToFiles(join(dir, "keys"));
    const stranger = await keygenToFiles(join(dir, "stranger"));
    if (!keys.ok || !stranger.ok) throw new Error("keygen");
    const out = join(dir, "app.lineup");
    expect((await packDirectory(join(FIXTURES, "hello"), out, { compression: "deflate" })).ok).toBe(true);
    const unsigned = await verifyFile(out, keys.value.publicKeyFile);
    expect(unsigned.ok ? "accepted" : unsigned.error.code).toBe("bundle_missing_signature");
    expect((await signFile(out, keys.value.privateKeyFile)).ok).toBe(true);
    const accepted = await verifyFile(out, keys.value.publicKeyFile);
    expect(accepted.ok ? accepted.value.keyId : accepted.error).toBe(keys.value.keyId);
    const refused = await verifyFile(out, stranger.value.publicKeyFile);
    expect(refused.ok ? "accepted" : refused.error.code).toBe("bundle_untrusted_key");
    // A settings-style list of several keys works too.
    const list = join(dir, "trusted.json");
    await writeFile(list, JSON.stringify({ trusted_keys: [stranger.value.trustedKey, keys.value.trustedKey] }));
    expect((await verifyFile(out, list)).ok).toBe(true);
  });

  it("verifyFile refuses an oversize file before reading it", async () => {
    const result = await verifyFile(GOLDEN, join(FIXTURES, "publisher.pub.json"), { maxBytes: 100 });
    expect(result.ok ? "accepted" : result.error.code).toBe("bundle_too_large");
  });

  it("readDirectoryFiles refuses a symbolic link instead of following it", async () => {
    const app = join(dir, "app");
    await cp(join(FIXTURES, "hello"), app, { recursive: true });
    await mkdir(join(app, "more"));
    await symlink("/etc/passwd", join(app, "more", "passwd"));
    const read = await readDirectoryFiles(app);
    expect(read.ok ? "read" : read.error.code).toBe("bundle_unsafe_path");
    const packed = await packDirectory(app, join(dir, "out.lineup"));
    expect(packed.ok ? "packed" : packed.error.code).toBe("bundle_unsafe_path");
  });

  it("packDirectory refuses a directory without a manifest", async () => {
    await writeFile(join(dir, "index.html"), "<p>hi</p>");
    const packed = await packDirectory(dir, join(dir, "..", "none.lineup"));
    expect(packed.ok ? "packed" : packed.error.code).toBe("bundle_manifest_invalid");
  });
});
