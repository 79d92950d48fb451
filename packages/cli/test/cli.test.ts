import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACK_PROGRESS_MIN_BYTES } from "@lineup/runtime/node";
import { runCli, type CliIo } from "../src/index.js";

function capture(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

const work = mkdtempSync(join(tmpdir(), "lineup-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("lineup", () => {
  it("prints usage for no command and refuses an unknown one with exit 2", async () => {
    const io = capture();
    expect(await runCli([], io)).toBe(2);
    expect(io.errors.join("\n")).toContain("usage: lineup <command>");
    const bad = capture();
    expect(await runCli(["frobnicate"], bad)).toBe(2);
    expect(bad.errors[0]).toContain('unknown command "frobnicate"');
  });

  it("build-app → keygen → pack → sign → verify round-trips the whiteboard, and a stranger's key is refused", async () => {
    const built = join(work, "whiteboard");
    const io = capture();
    expect(await runCli(["build-app", join(import.meta.dirname, "..", "..", "..", "apps", "whiteboard"), "--out", built], io)).toBe(0);
    expect(await runCli(["keygen", join(work, "keys")], io)).toBe(0);
    const bundle = join(work, "whiteboard.lineup");
    expect(await runCli(["pack", built, bundle], io)).toBe(0);
    expect(await runCli(["sign", bundle, join(work, "keys", "publisher.key")], io)).toBe(0);
    expect(await runCli(["verify", bundle, join(work, "keys", "publisher.pub.json")], io)).toBe(0);
    const { version } = JSON.parse(readFileSync(join(built, "lineup.app.json"), "utf8")) as { version: string };
    expect(io.lines.at(-1)).toMatch(new RegExp(`^verified whiteboard ${version.replace(/\./g, "\\.")}: \\d+ files, signed by [0-9a-f]{64}, sha256 [0-9a-f]{64}$`));

    expect(await runCli(["keygen", join(work, "stranger")], io)).toBe(0);
    const refused = capture();
    expect(await runCli(["verify", bundle, join(work, "stranger", "publisher.pub.json")], refused)).toBe(1);
    expect(refused.errors[0]).toMatch(/^refused: bundle_untrusted_key/);
  });

  it("refuses a tampered bundle with its reason code", async () => {
    const bundle = join(work, "whiteboard.lineup");
    const bytes = readFileSync(bundle);
    const html = bytes.indexOf(Buffer.from("<!doctype html>", "latin1"));
    expect(html).toBeGreaterThan(0);
    bytes[html + 2] = bytes[html + 2]! ^ 0x20;
    const tampered = join(work, "tampered.lineup");
    writeFileSync(tampered, bytes);
    const io = capture();
    expect(await runCli(["verify", tampered, join(work, "keys", "publisher.pub.json")], io)).toBe(1);
    expect(io.errors[0]).toMatch(/^refused: bundle_(hash_mismatch|entry_corrupt)/);
  });

  it("reports each step of packing a large app on stderr, and nothing for a small one", async () => {
    const app = join(work, "large-app");
    cpSync(join(work, "whiteboard"), app, { recursive: true });
    writeFileSync(join(app, "data.bin"), randomBytes(PACK_PROGRESS_MIN_BYTES));
    const io = capture();
    expect(await runCli(["pack", app, join(work, "large.lineup")], io)).toBe(0);
    expect(io.errors).toEqual([
      expect.stringMatching(/^read \d+ files \(\d+ bytes\) from .*large-app; compressing…$/),
      expect.stringMatching(/^compressed into \d+ bytes; writing .*large\.lineup…$/),
    ]);
    expect(io.lines).toEqual([expect.stringMatching(/^packed .*large\.lineup: \d+ files/)]);
    const small = capture();
    expect(await runCli(["pack", join(work, "whiteboard"), join(work, "small.lineup")], small)).toBe(0);
    expect(small.errors).toEqual([]);
  });

  it("reports usage errors with exit 2", async () => {
    const io = capture();
    expect(await runCli(["pack", "only-one-arg"], io)).toBe(2);
    expect(await runCli(["server", "--port", "99999"], io)).toBe(2);
    expect(io.errors.join("\n")).toContain("--port: port must be an integer 0…65535");
  });
});
