/**
 * The evidence pack `lineup.evidence.v1`: a session's events 1…through_seq and its artifacts,
 * with SHA-256 hashes that let anyone check the pack was not altered, reordered or truncated.
 *
 * - Each event is hashed over its canonical JSON (`canonicalJson`: RFC 8785 style — object keys
 *   sorted by UTF-16 code units, no whitespace, `JSON.stringify` strings and numbers).
 * - The events are chained: `chain_0` is 64 zeros, `chain_i = SHA-256(chain_{i-1} ‖ sha256_i)`
 *   over the ASCII of the two hex strings; `head_chain` is the last link.
 * - Each artifact carries its reference (with the SHA-256 of its content) and, when exported with
 *   data, its content as base64.
 * - `provenance` lists the package provenance of every agent task, tool result and artifact an app
 *   produced in the events (`evidenceProvenance`); a task-scoped pack's `scope` names the task and its
 *   turns, and its events end at the task's last event (`taskEventsOf`). Both are computed from the
 *   events, so a verifier recomputes them.
 * - `digest` is the SHA-256 of the canonical JSON of the whole pack without `digest`.
 *
 * The hash function is injected (WebCrypto is asynchronous, Node's is not), so this module does
 * no I/O and runs anywhere.
 */
import { Type, type Static } from "@sinclair/typebox";
import { fail, ok, type Result } from "../errors.js";
import { validators } from "../generated/app-server.js";
import type { JsonValue } from "../json.js";
import { Closed, OpaqueIdSchema, TimestampSchema, declared } from "../schema-kit.js";
import { EVIDENCE_PACK_SCHEMA_ID } from "./terms.js";
import { checkWith } from "../validation.js";
import type { ArtifactRef } from "../envelope/types.js";
import type { SessionEvent } from "./events.js";
import { ActorSchema, ArtifactRefRef, BASE64_PATTERN, CursorSchema, RecordRef, Sha256HexSchema, type Session } from "./records.js";
import { base64ToBytes } from "./base64.js";
import { EvidenceProvenanceEntrySchema, evidenceProvenance, taskEventsOf, type EvidenceProvenanceEntry } from "./evidence-provenance.js";

export const EVIDENCE_FORMAT = "lineup.evidence.v1";
export const EVIDENCE_MIME_TYPE = "application/vnd.lineup.evidence+json";
export const GENESIS_CHAIN = /* @__PURE__ */ declared(() => "0".repeat(64));

export const EvidencePackSchema = /* @__PURE__ */ declared(() => Closed(
  {
    format: Type.Literal(EVIDENCE_FORMAT),
    export_id: OpaqueIdSchema(),
    exported_at: TimestampSchema(),
    exported_by: ActorSchema,
    session: RecordRef<Session>("app-server.session"),
    /** Absent: the session's events 1…through_seq. Present: one agent task's, ending at its last event. */
    scope: Type.Optional(
      Closed({
        task_id: OpaqueIdSchema(),
        /** The task's turns in the events (one per attempt), in the order they started. */
        turn_ids: Type.Array(OpaqueIdSchema(), { minItems: 1, maxItems: 1000 }),
      }),
    ),
    through_seq: CursorSchema(),
    events: Type.Array(
      Closed({
        event: RecordRef<SessionEvent>("app-server.event"),
        sha256: Sha256HexSchema(),
        chain: Sha256HexSchema(),
      }),
    ),
    head_chain: Sha256HexSchema(),
    artifacts: Type.Array(
      Closed({
        artifact: ArtifactRefRef(),
        /** The content, base64; absent when exported without data. */
        data: Type.Optional(Type.String({ pattern: BASE64_PATTERN })),
      }),
    ),
    /** Who made what: computed from the events (`evidenceProvenance`), in seq order. */
    provenance: Type.Array(EvidenceProvenanceEntrySchema),
    digest: Sha256HexSchema(),
  },
  { $id: EVIDENCE_PACK_SCHEMA_ID, title: "Evidence pack lineup.evidence.v1" },
));
export type EvidencePack = Static<typeof EvidencePackSchema>;
export type EvidenceScope = NonNullable<EvidencePack["scope"]>;

/** SHA-256 as lowercase hex of the bytes (UTF-8 for a string). */
export type Sha256Hex = (input: string | Uint8Array) => string;

/**
 * Canonical JSON: keys sorted (by UTF-16 code units), no whitespace, strings and numbers as
 * `JSON.stringify` writes them. Equal values give equal text. It runs on hot paths (body
 * fingerprints, the Runtime's audit chain), so the value is brought into canonical key order —
 * the same objects where their keys already are, copies only where not — and written by the native
 * `JSON.stringify` in one pass (it writes own keys in the order they were added). Keys whose place
 * insertion cannot set (integer-like keys come first whatever their text; `__proto__`) are written
 * by joining the parts instead.
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const ordered = canonicallyOrdered(value, 0);
  return ordered === undefined ? joined(value) : JSON.stringify(ordered);
}

/** Deeper values are joined part by part (no deep copies on a path that must not overflow). */
const MAX_ORDERED_DEPTH = 64;

/** `value` with every object's keys in canonical order, or undefined when a key's place cannot be set by insertion. */
function canonicallyOrdered(value: JsonValue, depth: number): JsonValue | undefined {
  if (value === null || typeof value !== "object") return value;
  if (depth > MAX_ORDERED_DEPTH) return undefined;
  if (Array.isArray(value)) {
    let copy: JsonValue[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as JsonValue;
      const ordered = canonicallyOrdered(item, depth + 1);
      if (ordered === undefined) return undefined;
      if (ordered !== item) copy ??= value.slice(0, i) as JsonValue[];
      copy?.push(ordered);
    }
    return copy ?? value;
  }
  const keys = Object.keys(value);
  let inOrder = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (!insertable(key)) return undefined;
    if (i > 0 && !(keys[i - 1]! < key)) inOrder = false;
  }
  if (!inOrder) sortCanonicalKeys(keys);
  let copy: Record<string, JsonValue> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = value[key] as JsonValue;
    const ordered = canonicallyOrdered(item, depth + 1);
    if (ordered === undefined) return undefined;
    if (copy === undefined && (!inOrder || ordered !== item)) {
      copy = {};
      for (let j = 0; j < i; j++) copy[keys[j]!] = value[keys[j]!] as JsonValue;
    }
    if (copy !== undefined) copy[key] = ordered;
  }
  return copy ?? value;
}

/** A key `JSON.stringify` writes where it was inserted, and whose assignment makes an own data property. */
function insertable(key: string): boolean {
  const c = key.charCodeAt(0);
  return !(c >= 48 && c <= 57) && key !== "__proto__";
}

/** Canonical JSON written part by part, for values `canonicallyOrdered` cannot order. */
function joined(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + joined(value[i] as JsonValue);
    return `${out}]`;
  }
  const keys = Object.keys(value);
  sortCanonicalKeys(keys);
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    out += `${i === 0 ? "" : ","}${JSON.stringify(key)}:${joined(value[key] as JsonValue)}`;
  }
  return `${out}}`;
}

/**
 * Sorts `keys` in place by UTF-16 code units, as `Array.prototype.sort()` does and canonical JSON orders
 * them. Objects here have few keys, often already in order: an insertion sort does no allocation and one
 * pass when they are; a long list goes to the built-in sort.
 */
export function sortCanonicalKeys(keys: string[]): void {
  if (keys.length > 24) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j -= 1;
    }
    keys[j + 1] = key;
  }
}

export function chainLink(previous: string, eventSha256: string, sha256Hex: Sha256Hex): string {
  return sha256Hex(previous + eventSha256);
}

export interface EvidenceInput {
  readonly export_id: string;
  readonly exported_at: string;
  readonly exported_by: { role: "device" | "agent" | "server"; id: string };
  readonly session: Session;
  /** Events 1…n in order. */
  readonly events: readonly SessionEvent[];
  readonly artifacts: ReadonlyArray<{ artifact: ArtifactRef; data?: string }>;
  /** For a task's pack: the task and its turns (`taskEventsOf` over the events), the events ending at its last one. */
  readonly scope?: EvidenceScope;
}

/** Builds a pack (pure, given the hash). The caller stores its canonical JSON as the pack artifact. */
export function buildEvidencePack(input: EvidenceInput, sha256Hex: Sha256Hex): EvidencePack {
  let chain = GENESIS_CHAIN;
  const events = input.events.map((event) => {
    const sha256 = sha256Hex(canonicalJson(event as unknown as JsonValue));
    chain = chainLink(chain, sha256, sha256Hex);
    return { event, sha256, chain };
  });
  const body = {
    format: EVIDENCE_FORMAT,
    export_id: input.export_id,
    exported_at: input.exported_at,
    exported_by: input.exported_by,
    session: input.session,
    ...(input.scope === undefined ? {} : { scope: { task_id: input.scope.task_id, turn_ids: [...input.scope.turn_ids] } }),
    through_seq: input.events.length === 0 ? 0 : input.events[input.events.length - 1]!.seq,
    events,
    head_chain: chain,
    artifacts: input.artifacts.map((a) => (a.data === undefined ? { artifact: a.artifact } : { artifact: a.artifact, data: a.data })),
    provenance: evidenceProvenance(input.events),
  } as const;
  return { ...body, digest: sha256Hex(canonicalJson(body as unknown as JsonValue)) } as EvidencePack;
}

export interface EvidenceSummary {
  readonly session_id: string;
  readonly through_seq: number;
  readonly events: number;
  readonly artifacts: number;
  readonly artifacts_with_data: number;
}

/**
 * Verifies a pack: its schema, events 1…through_seq of its session in order, every event hash,
 * the chain, every artifact's size and SHA-256 (when its data is present), that every
 * `artifact.added` event's artifact is in the pack, that the provenance list is the one the events
 * give, for a task's pack that `scope.turn_ids` are exactly the task's turns in the events and that
 * the events end at the task's last event, and the digest. The first problem is refused with
 * `evidence_invalid` (or `invalid_params` for a schema problem) and a JSON Pointer.
 */
export function verifyEvidencePack(value: unknown, sha256Hex: Sha256Hex): Result<EvidenceSummary> {
  const validator = validators[EVIDENCE_PACK_SCHEMA_ID];
  if (validator === undefined) return fail("internal_error", "no generated validator for the evidence pack: run npm run gen");
  const checked = checkWith<EvidencePack>(validator, value, "invalid_params");
  if (!checked.ok) return checked;
  const pack = checked.value;
  const sessionId = pack.session.session_id;
  let chain = GENESIS_CHAIN;
  for (const [i, entry] of pack.events.entries()) {
    if (entry.event.seq !== i + 1) return fail("evidence_invalid", `event ${i} has seq ${entry.event.seq}, expected ${i + 1}`, `/events/${i}/event/seq`);
    if (entry.event.session_id !== sessionId) return fail("evidence_invalid", `event ${i} belongs to another session`, `/events/${i}/event/session_id`);
    const sha256 = sha256Hex(canonicalJson(entry.event as unknown as JsonValue));
    if (sha256 !== entry.sha256) return fail("evidence_invalid", `event seq ${entry.event.seq} does not match its sha256`, `/events/${i}/sha256`);
    chain = chainLink(chain, sha256, sha256Hex);
    if (chain !== entry.chain) return fail("evidence_invalid", `the chain breaks at seq ${entry.event.seq}`, `/events/${i}/chain`);
  }
  if (pack.through_seq !== pack.events.length) return fail("evidence_invalid", `through_seq ${pack.through_seq} but ${pack.events.length} events`, "/through_seq");
  if (chain !== pack.head_chain) return fail("evidence_invalid", "head_chain is not the last link", "/head_chain");
  const listed = new Map<string, ArtifactRef>();
  let withData = 0;
  for (const [i, entry] of pack.artifacts.entries()) {
    listed.set(entry.artifact.artifact_id, entry.artifact);
    if (entry.data === undefined) continue;
    const bytes = base64ToBytes(entry.data);
    if (bytes === undefined || bytes.byteLength !== entry.artifact.size) return fail("evidence_invalid", `artifact ${entry.artifact.artifact_id} data is not ${entry.artifact.size} bytes`, `/artifacts/${i}/data`);
    if (sha256Hex(bytes) !== entry.artifact.sha256) return fail("evidence_invalid", `artifact ${entry.artifact.artifact_id} does not match its sha256`, `/artifacts/${i}/data`);
    withData++;
  }
  for (const [i, entry] of pack.events.entries()) {
    if (entry.event.kind !== "artifact.added") continue;
    const ref = (entry.event.data as { artifact: ArtifactRef }).artifact;
    const found = listed.get(ref.artifact_id);
    if (found === undefined || found.sha256 !== ref.sha256) return fail("evidence_invalid", `artifact ${ref.artifact_id} of seq ${entry.event.seq} is missing from the pack`, `/events/${i}/event/data/artifact`);
  }
  const events = pack.events.map((entry) => entry.event);
  const provenance = checkProvenance(pack.provenance, evidenceProvenance(events));
  if (!provenance.ok) return provenance;
  if (pack.scope !== undefined) {
    const scope = checkScope(pack.scope, events, pack.through_seq);
    if (!scope.ok) return scope;
  }
  const { digest, ...body } = pack;
  if (sha256Hex(canonicalJson(body as unknown as JsonValue)) !== digest) return fail("evidence_invalid", "the digest does not match the pack", "/digest");
  return ok({ session_id: sessionId, through_seq: pack.through_seq, events: pack.events.length, artifacts: pack.artifacts.length, artifacts_with_data: withData });
}

const describeEntry = (e: EvidenceProvenanceEntry): string => `${e.kind} ${e.subject} at seq ${e.seq}`;

/** The pack's provenance list against the one its events give; the first difference is refused. */
function checkProvenance(listed: readonly EvidenceProvenanceEntry[], computed: readonly EvidenceProvenanceEntry[]): Result<void> {
  for (let i = 0; i < Math.max(listed.length, computed.length); i++) {
    const have = listed[i];
    const want = computed[i];
    if (have === undefined) return fail("evidence_invalid", `the events give provenance for ${describeEntry(want!)}, which the pack does not list`, `/provenance/${i}`);
    if (want === undefined) return fail("evidence_invalid", `the pack lists provenance for ${describeEntry(have)}, which no event gives`, `/provenance/${i}`);
    if (canonicalJson(have as unknown as JsonValue) !== canonicalJson(want as unknown as JsonValue)) {
      return fail("evidence_invalid", `provenance entry ${i} is not the one the events give for ${describeEntry(want)}`, `/provenance/${i}`);
    }
  }
  return ok(undefined);
}

/** A task's pack: its turns are exactly the task's turns in the events, and the events end at the task's last one. */
function checkScope(scope: EvidenceScope, events: readonly SessionEvent[], throughSeq: number): Result<void> {
  const task = taskEventsOf(events, scope.task_id);
  if (task.turn_ids.length === 0) return fail("evidence_invalid", `no turn of task ${scope.task_id} is in the pack`, "/scope/task_id");
  if (task.turn_ids.length !== scope.turn_ids.length || task.turn_ids.some((id, i) => scope.turn_ids[i] !== id)) {
    return fail("evidence_invalid", `the task's turns in the events are ${task.turn_ids.join(", ")}, the scope names ${scope.turn_ids.join(", ")}`, "/scope/turn_ids");
  }
  if (task.last_seq !== throughSeq) return fail("evidence_invalid", `the task's last event is seq ${task.last_seq}, but the pack runs through ${throughSeq}`, "/through_seq");
  return ok(undefined);
}
