/**
 * `lineup evidence verify PACK [--json]`: checks a `lineup.evidence.v1` pack offline (`verifyEvidencePack`)
 * and says what it holds: the session, its events, the task it is scoped to, who made each task, tool
 * result and artifact. Exit 0 when it verifies, 1 when it does not (or cannot be read), 2 for a usage error.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { decodeJson, DEFAULT_SERVER_LIMITS, UsageError, verifyEvidencePack, type EvidencePack, type EvidenceSummary, type ProtocolError, type Provenance } from "@lineup/protocol";
import type { CliIo, Command, LoadedCommand } from "../io.js";

export const EVIDENCE_USAGE = "usage: lineup evidence verify PACK [--json]";

/** A pack holds events as deep as the frames that wrote them, a few levels down. */
const PACK_LIMITS = { maxBytes: DEFAULT_SERVER_LIMITS.max_artifact_bytes, maxDepth: DEFAULT_SERVER_LIMITS.max_json_depth + 16 };

const sha256Hex = (input: string | Uint8Array): string => createHash("sha256").update(input).digest("hex");

export const evidenceCommand: Command = async (argv, io) => {
  const parsed = parseArgs({ args: [...argv], options: { json: { type: "boolean" } }, allowPositionals: true });
  const [sub, file, ...extra] = parsed.positionals;
  if (sub !== "verify") throw new UsageError(sub === undefined ? "name the subcommand: verify" : `unknown subcommand ${JSON.stringify(sub)}`);
  if (file === undefined || extra.length > 0) throw new UsageError("expected one PACK");
  return verifyPackFile(file, parsed.values.json === true, io);
};

async function verifyPackFile(file: string, json: boolean, io: CliIo): Promise<number> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (error) {
    io.err(`cannot read ${file}: ${(error as Error).message}`);
    return 1;
  }
  const decoded = decodeJson(bytes, PACK_LIMITS);
  if (!decoded.ok) return refused(io, decoded.error, json);
  const verified = verifyEvidencePack(decoded.value, sha256Hex);
  if (!verified.ok) return refused(io, verified.error, json);
  // Verified: every field the report reads is one the checks covered.
  const pack = decoded.value as unknown as EvidencePack;
  if (json) io.out(JSON.stringify(jsonReport(pack, verified.value)));
  else for (const line of humanReport(pack, verified.value)) io.out(line);
  return 0;
}

function refused(io: CliIo, error: ProtocolError, json: boolean): number {
  if (json) io.out(JSON.stringify({ ok: false, error: errorData(error) }));
  else io.err(`refused: ${error.code}${error.path === undefined ? "" : ` at ${error.path}`}: ${error.message}`);
  return 1;
}

const errorData = (error: ProtocolError) => ({ code: error.code, ...(error.path === undefined ? {} : { path: error.path }), message: error.message });

function jsonReport(pack: EvidencePack, summary: EvidenceSummary) {
  return {
    ok: true,
    export_id: pack.export_id,
    digest: pack.digest,
    ...summary,
    ...(pack.scope === undefined ? {} : { scope: pack.scope }),
    provenance: pack.provenance,
    artifact_refs: pack.artifacts.map((a) => ({ ...a.artifact, with_data: a.data !== undefined })),
  };
}

export function describeProvenance(provenance: Provenance): string {
  return `${provenance.app_scope} ${provenance.app_version}${provenance.bundle_digest === undefined ? " (no bundle digest)" : ` ${provenance.bundle_digest}`}`;
}

/** The lines a person reads for a verified pack. */
export function humanReport(pack: EvidencePack, summary: EvidenceSummary): string[] {
  const { session } = pack;
  const lines = [
    `verified ${pack.export_id}: ${summary.events} events of session ${session.session_id} (app ${session.app_scope}, agent ${session.agent_id}), through seq ${summary.through_seq}`,
    `  exported ${pack.exported_at} by ${pack.exported_by.role} ${pack.exported_by.id}; digest ${pack.digest}`,
  ];
  if (pack.scope !== undefined) lines.push(`  scope: task ${pack.scope.task_id}, turns ${pack.scope.turn_ids.join(", ")}`);
  const section = (title: string, kind: EvidencePack["provenance"][number]["kind"]) => {
    const entries = pack.provenance.filter((p) => p.kind === kind);
    lines.push(`${title} (${entries.length}):`);
    for (const entry of entries) lines.push(`  ${entry.subject} at seq ${entry.seq}: ${describeProvenance(entry.provenance)}`);
  };
  section("tasks", "task");
  section("tool results", "tool_result");
  const made = new Map(pack.provenance.filter((p) => p.kind === "artifact").map((p) => [p.subject, p.provenance]));
  lines.push(`artifacts (${summary.artifacts}, ${summary.artifacts_with_data} with data):`);
  for (const { artifact, data } of pack.artifacts) {
    const by = made.get(artifact.artifact_id);
    lines.push(
      `  ${artifact.artifact_id} ${artifact.name} (${artifact.mime_type}, ${artifact.size} bytes, sha256 ${artifact.sha256})${data === undefined ? ", without data" : ""}${by === undefined ? "" : `: ${describeProvenance(by)}`}`,
    );
  }
  return lines;
}

export const evidenceCli: LoadedCommand = { run: evidenceCommand, usage: EVIDENCE_USAGE };
