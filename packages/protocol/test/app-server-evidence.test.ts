import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  base64ToBytes,
  buildEvidencePack,
  bytesToBase64,
  canonicalJson,
  verifyEvidencePack,
  type EvidencePack,
  type Session,
  type SessionEvent,
} from "@lineup/protocol";

const sha256Hex = (input: string | Uint8Array) => createHash("sha256").update(input).digest("hex");

const session: Session = {
  session_id: "s1",
  app_scope: "chat",
  workspace_id: "w1",
  owner_user_id: "u1",
  agent_id: "agent-1",
  state: "active",
  created_at: "2026-08-06T10:00:00.000Z",
  last_seq: 3,
  inventory_revision: 0,
};
const content = new TextEncoder().encode("hello evidence");
const artifact = { artifact_id: "a1", name: "note.txt", mime_type: "text/plain", size: content.byteLength, sha256: sha256Hex(content) };
const at = "2026-08-06T10:00:01.000Z";
const events: SessionEvent[] = [
  { session_id: "s1", seq: 1, kind: "session.started", created_at: at, actor: { role: "device", id: "d1" }, data: { session: { ...session, last_seq: 0 } } },
  { session_id: "s1", seq: 2, kind: "artifact.added", created_at: at, actor: { role: "device", id: "d1" }, data: { artifact } },
  { session_id: "s1", seq: 3, kind: "turn.activated", created_at: at, actor: { role: "server", id: "server" }, data: { turn_id: "t1" } },
] as SessionEvent[];

function pack(): EvidencePack {
  return buildEvidencePack(
    { export_id: "x1", exported_at: at, exported_by: { role: "device", id: "d1" }, session, events, artifacts: [{ artifact, data: bytesToBase64(content) }] },
    sha256Hex,
  );
}
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe("evidence packs", () => {
  it("a built pack verifies, also after a JSON round trip", () => {
    expect(verifyEvidencePack(clone(pack()), sha256Hex)).toEqual({
      ok: true,
      value: { session_id: "s1", through_seq: 3, events: 3, artifacts: 1, artifacts_with_data: 1 },
    });
  });

  it("detects an altered event", () => {
    const p = clone(pack()) as { events: Array<{ event: { data: Record<string, unknown> } }> };
    p.events[2]!.event.data["turn_id"] = "t2";
    expect(verifyEvidencePack(p, sha256Hex)).toMatchObject({ ok: false, error: { code: "evidence_invalid", path: "/events/2/sha256" } });
  });

  it("detects reordered and dropped events", () => {
    const p = clone(pack());
    const swapped = { ...p, events: [p.events[1]!, p.events[0]!, p.events[2]!] };
    expect(verifyEvidencePack(swapped, sha256Hex)).toMatchObject({ ok: false, error: { code: "evidence_invalid", path: "/events/0/event/seq" } });
    const dropped = { ...p, events: p.events.slice(0, 2) };
    expect(verifyEvidencePack(dropped, sha256Hex)).toMatchObject({ ok: false, error: { code: "evidence_invalid", path: "/through_seq" } });
  });

  it("detects a re-hashed event by the chain, and a forged chain by the digest", () => {
    const p = clone(pack()) as unknown as { events: Array<{ event: SessionEvent; sha256: string; chain: string }>; head_chain: string };
    (p.events[2]!.event.data as { turn_id: string }).turn_id = "t9";
    p.events[2]!.sha256 = sha256Hex(canonicalJson(p.events[2]!.event as never));
    expect(verifyEvidencePack(p, sha256Hex)).toMatchObject({ ok: false, error: { code: "evidence_invalid", path: "/events/2/chain" } });
    p.events[2]!.chain = sha256Hex(p.events[1]!.chain + p.events[2]!.sha256);
    p.head_chain = p.events[2]!.chain;
    expect(verifyEvidencePack(p, sha256Hex)).toMatchObject({ ok: false, error: { code: "evidence_invalid", path: "/digest" } });
  });

  it("detects altered artifact content and a missing artifact", () => {
    const p = clone(pack());
    const altered = { ...p, artifacts: [{ artifact, data: bytesToBase64(new TextEncoder().encode("hello evidencE")) }] };
    expect(verifyEvidencePack(altered, sha256Hex)).toMatchObject({ ok: false, error: { code: "evidence_invalid", path: "/artifacts/0/data" } });
    expect(verifyEvidencePack({ ...p, artifacts: [] }, sha256Hex)).toMatchObject({ ok: false, error: { code: "evidence_invalid", path: "/events/1/event/data/artifact" } });
  });

  it("refuses a pack that is not one", () => {
    expect(verifyEvidencePack({ format: "lineup.evidence.v0" }, sha256Hex)).toMatchObject({ ok: false, error: { code: "invalid_params" } });
  });
});

describe("canonicalJson", () => {
  it("sorts keys at every level and is stable under key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: "é" }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":"é","z":0}]},"b":1}');
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const shuffled = JSON.parse(JSON.stringify(v, (_k, x: unknown) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).reverse()) : x)));
        expect(canonicalJson(shuffled as never)).toBe(canonicalJson(v as never));
        expect(JSON.parse(canonicalJson(v as never))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
    );
  });

  it("orders keys by UTF-16 code units, for short and long key lists alike (numeric-looking keys too)", () => {
    for (const size of [2, 5, 24, 25, 60]) {
      const keys = Array.from({ length: size }, (_, i) => (i % 3 === 0 ? String(size * 7 - i) : i % 3 === 1 ? `k${(i * 37) % size}` : `\u00e9${i}`));
      const object = Object.fromEntries(keys.map((k) => [k, k]));
      const expected = `{${[...new Set(keys)].sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(k)}`).join(",")}}`;
      expect(canonicalJson(object)).toBe(expected);
    }
  });

  it("writes exactly the text of the plain definition (evidence digests depend on every byte)", () => {
    const reference = (v: unknown): string => {
      if (v === null || typeof v !== "object") return JSON.stringify(v);
      if (Array.isArray(v)) return `[${v.map(reference).join(",")}]`;
      return `{${Object.keys(v)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${reference((v as Record<string, unknown>)[k])}`)
        .join(",")}}`;
    };
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalJson(v as never)).toBe(reference(v));
      }),
      { numRuns: 500 },
    );
  });

  it("writes the same text when objects already list their keys in canonical order (the native fast path)", () => {
    const sortedEverywhere = (v: unknown): unknown =>
      JSON.parse(JSON.stringify(v, (_k, x: unknown) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x)));
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const sorted = sortedEverywhere(v);
        expect(canonicalJson(sorted as never)).toBe(canonicalJson(v as never));
      }),
      { numRuns: 500 },
    );
    // Integer-like keys come first in property order, whatever their text order: "10" before "9" is not canonical.
    expect(canonicalJson({ "9": 1, "10": 2 })).toBe('{"10":2,"9":1}');
    expect(canonicalJson({ "1": 1, "2": { b: [{ d: 1, c: 2 }], a: 0 } })).toBe('{"1":1,"2":{"a":0,"b":[{"c":2,"d":1}]}}');
    expect(canonicalJson(JSON.parse('{"__proto__":{"b":1,"a":2},"a":[]}') as never)).toBe('{"__proto__":{"a":2,"b":1},"a":[]}');
    // An inherited enumerable key is not part of the value (own keys only), in either path.
    const inherited = Object.assign(Object.create({ z: 1 }) as object, { a: 1, b: 2 });
    expect(canonicalJson(inherited as never)).toBe('{"a":1,"b":2}');
  });
});

describe("base64", () => {
  it("agrees with Node's Buffer both ways", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = Buffer.from(bytes).toString("base64");
        expect(bytesToBase64(bytes)).toBe(text);
        expect(base64ToBytes(text)).toEqual(bytes);
      }),
    );
  });

  it("refuses text that is not padded base64", () => {
    for (const bad of ["a", "ab=", "a===", "ab*d", "é123"]) expect(base64ToBytes(bad), bad).toBeUndefined();
  });

  it("refuses non-canonical trailing bits, so each byte string has exactly one accepted text", () => {
    // "QQ==" is "A"; "QR==" … "QX==" differ only in the 4 bits past the byte. Likewise "QUI=" is "AB", "QUJ=" is not canonical.
    expect(base64ToBytes("QQ==")).toEqual(new Uint8Array([0x41]));
    expect(base64ToBytes("QUI=")).toEqual(new Uint8Array([0x41, 0x42]));
    for (const bad of ["QR==", "QX==", "Q/==", "QUJ=", "QUL=", "QUP=", "AAAAQR=="]) expect(base64ToBytes(bad), bad).toBeUndefined();
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.integer({ min: 1, max: 15 }), (bytes, noise) => {
        const text = bytesToBase64(bytes);
        const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
        fc.pre(padding > 0);
        const at = text.length - padding - 1;
        const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const spare = padding === 2 ? 0x0f : 0x03;
        const changed = ALPHABET.indexOf(text[at]!) | (noise & spare);
        fc.pre((noise & spare) !== 0);
        const tampered = text.slice(0, at) + ALPHABET[changed]! + text.slice(at + 1);
        expect(base64ToBytes(tampered), tampered).toBeUndefined();
      }),
    );
  });
});
