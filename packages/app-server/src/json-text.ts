/**
 * The JSON text of a write's params, serialized once on the write path. The idempotency fingerprint
 * takes the canonical JSON of each member of the params and remembers it by the member's identity;
 * the event the write appends (an envelope under `data`) reuses that text instead of serializing
 * the same value again. Canonical JSON is JSON of the same value with its keys in canonical order,
 * so the stored event reads back the same. A remembered value is never mutated afterwards (a
 * request's params are not).
 */
import { canonicalJson, sortCanonicalKeys, type JsonObject, type JsonValue } from "@lineup/protocol";

const remembered = new WeakMap<object, string>();

/** `canonicalJson(value)`, joined from the canonical JSON of its members, each remembered when it is an object or array. */
export function canonicalJsonOfMembers(value: JsonObject): string {
  const keys = Object.keys(value);
  sortCanonicalKeys(keys);
  let out = "{";
  for (const key of keys) {
    const member = value[key];
    // As JSON.stringify, which canonicalJson ends in: a member without a value is left out.
    if (member === undefined) continue;
    const text = canonicalJson(member);
    if (typeof member === "object" && member !== null) remembered.set(member, text);
    out += `${out.length === 1 ? "" : ","}${JSON.stringify(key)}:${text}`;
  }
  return `${out}}`;
}

/** `JSON.stringify(value)` of an object, with the remembered text of any member that has one. */
export function jsonWithRememberedMembers(value: JsonObject): string {
  let out = "{";
  for (const key of Object.keys(value)) {
    const member: JsonValue | undefined = value[key];
    if (member === undefined) continue;
    const text = (typeof member === "object" && member !== null ? remembered.get(member) : undefined) ?? JSON.stringify(member);
    out += `${out.length === 1 ? "" : ","}${JSON.stringify(key)}:${text}`;
  }
  return `${out}}`;
}
