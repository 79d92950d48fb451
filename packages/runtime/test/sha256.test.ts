import { createHash } from "node:crypto";
import { canonicalJson, type JsonValue } from "@lineup/protocol";
import { describe, expect, it } from "vitest";
import { chainAudit, chainAuditSync, sha256Hex as auditSha256Hex, type AuditRecord } from "../src/coordination/audit.js";
import type { AuditDraft } from "../src/coordination/inputs.js";
import { sha256, sha256Hex } from "../src/core/sha256.js";
import { seededRandom } from "./store-test-helpers.js";

const nodeHex = (input: string | Uint8Array): string => createHash("sha256").update(input).digest("hex");

describe("sha256 (FIPS 180-4)", () => {
  it("matches the NIST example vectors", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    expect(sha256Hex("a".repeat(1_000_000))).toBe("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  });

  it("gives the same digest for a string and its UTF-8 bytes, as hex and as bytes", () => {
    const text = "héllo, wörld — 日本語 🎉";
    const bytes = new TextEncoder().encode(text);
    expect(sha256Hex(bytes)).toBe(sha256Hex(text));
    expect(sha256Hex(text)).toBe(nodeHex(text));
    expect(Array.from(sha256(text))).toEqual(Array.from(createHash("sha256").update(text).digest()));
  });

  it("hashes input and suffix as their joined text, a surrogate pair split between them included", () => {
    const next = seededRandom(11);
    const alphabet = ["a", "é", "日", "\ud83c", "\udf89", "🎉", "\u0000", "z"];
    const text = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
    for (let i = 0; i < 300; i++) {
      const [head, tail] = [text(Math.floor(next() * 90)), text(Math.floor(next() * 90))];
      expect(sha256Hex(head, tail)).toBe(nodeHex(head + tail));
    }
    expect(sha256Hex("x\ud83c", "\udf89y")).toBe(nodeHex("x🎉y"));
    expect(sha256Hex(new TextEncoder().encode("prev"), "next")).toBe(nodeHex("prevnext"));
    // Past the reused buffer (64 KiB) the message gets its own.
    expect(sha256Hex("a".repeat(40_000), "b".repeat(40_000))).toBe(nodeHex("a".repeat(40_000) + "b".repeat(40_000)));
  });

  it("hashes a lone surrogate as U+FFFD, like TextEncoder and node:crypto", () => {
    expect(sha256Hex("a\ud800b")).toBe(sha256Hex("a\ufffdb"));
    expect(sha256Hex("a\ud800b")).toBe(nodeHex("a\ud800b"));
  });

  it("is right on both sides of every padding boundary", () => {
    for (const length of [0, 1, 54, 55, 56, 57, 63, 64, 65, 118, 119, 120, 127, 128, 129]) {
      const text = "x".repeat(length);
      expect(sha256Hex(text), `${length} bytes`).toBe(nodeHex(text));
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + length) & 0xff);
      expect(sha256Hex(bytes), `${length} binary bytes`).toBe(nodeHex(bytes));
    }
  });

  it("matches node:crypto on 1,000 seeded random inputs of 0–5,000 bytes", () => {
    const random = seededRandom(0x5eed256);
    for (let i = 0; i < 1000; i++) {
      const length = Math.floor(random() * 5001);
      const bytes = Uint8Array.from({ length }, () => Math.floor(random() * 256));
      expect(sha256Hex(bytes), `input ${i} (${length} bytes)`).toBe(nodeHex(bytes));
    }
  });

  it("matches node:crypto on random Unicode strings and on inputs larger than its scratch buffer", () => {
    const random = seededRandom(42);
    const alphabet = ["a", "Z", "0", " ", "\n", "é", "ß", "€", "日", "🎉", "\u0000", "\ud7ff", "\ue000"];
    for (let i = 0; i < 200; i++) {
      const text = Array.from({ length: Math.floor(random() * 2000) }, () => alphabet[Math.floor(random() * alphabet.length)]!).join("");
      expect(sha256Hex(text), `string ${i}`).toBe(nodeHex(text));
    }
    const big = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 131) & 0xff);
    expect(sha256Hex(big)).toBe(nodeHex(big));
    // And a small input right after it still uses a clean buffer.
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("the audit chain's hashes", () => {
  it("link each turn's batch once: SHA-256 of the previous hash and each record's canonical JSON without its hash", async () => {
    const head = { next: 0, hash: "0".repeat(64) };
    const drafts: AuditDraft[] = [{ type: "filter.refused", code: "not_owner", detail: "ü — 日本" }, { type: "b" }];
    const chained = await chainAudit(head, drafts, 1_700_000_000_000);
    expect(chainAuditSync(head, drafts, 1_700_000_000_000)).toEqual(chained);
    const records = chained.writes.map((write) => {
      if (write.op !== "put") throw new Error("expected puts");
      return write.value as unknown as AuditRecord;
    });
    const bodies = records.map(({ hash: _hash, ...rest }) => canonicalJson(rest as unknown as JsonValue));
    const hash = nodeHex(head.hash + bodies.join(""));
    expect(records.map((record) => [record.index, record.prev, record.hash])).toEqual([
      [0, head.hash, hash],
      [1, head.hash, hash],
    ]);
    expect(chained.head).toEqual({ next: 2, hash });
    // A batch of one hashes as a per-record chain did, so chains stored before batching still verify.
    const single = chainAuditSync(chained.head, [{ type: "c" }], 1_700_000_000_001);
    const [only] = single.writes as unknown as { value: AuditRecord }[];
    const { hash: onlyHash, ...onlyRest } = only!.value;
    expect(onlyHash).toBe(nodeHex(hash + canonicalJson(onlyRest as unknown as JsonValue)));
    expect(await auditSha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
