/**
 * Bundle commands: `lineup keygen DIR`, `lineup pack APP_DIR OUT.lineup`, `lineup sign BUNDLE KEY`,
 * `lineup verify BUNDLE TRUSTED_KEYS.json`. Refusals print the bundle reason code.
 */
import type { ProtocolError } from "@lineup/protocol";
import { keygenToFiles, packDirectory, signFile, verifyFile } from "@lineup/runtime/node";
import type { CliIo, Command } from "../io.js";

function refused(io: CliIo, error: ProtocolError): number {
  io.err(`refused: ${error.code}${error.path === undefined ? "" : ` at ${error.path}`}: ${error.message}`);
  return 1;
}

function arity(argv: readonly string[], n: number, usage: string, io: CliIo): boolean {
  if (argv.length === n && argv.every((a) => !a.startsWith("--"))) return true;
  io.err(`usage: ${usage}`);
  return false;
}

export const keygenCommand: Command = async (argv, io) => {
  if (!arity(argv, 1, "lineup keygen DIR", io)) return 2;
  const made = await keygenToFiles(argv[0]!);
  if (!made.ok) return refused(io, made.error);
  io.out(`publisher key ${made.value.keyId}`);
  io.out(`  private key: ${made.value.privateKeyFile} (keep it secret)`);
  io.out(`  public key:  ${made.value.publicKeyFile} (add it to the Runtime's trusted publisher keys)`);
  return 0;
};

export const packCommand: Command = async (argv, io) => {
  if (!arity(argv, 2, "lineup pack APP_DIR OUT.lineup   (APP_DIR holds lineup.app.json and the app's files)", io)) return 2;
  const packed = await packDirectory(argv[0]!, argv[1]!);
  if (!packed.ok) return refused(io, packed.error);
  io.out(`packed ${packed.value.file}: ${packed.value.files} files, ${packed.value.bytes} bytes (unsigned: run lineup sign)`);
  return 0;
};

export const signCommand: Command = async (argv, io) => {
  if (!arity(argv, 2, "lineup sign BUNDLE PRIVATE_KEY", io)) return 2;
  const signed = await signFile(argv[0]!, argv[1]!);
  if (!signed.ok) return refused(io, signed.error);
  io.out(`signed ${signed.value.file} (${signed.value.bytes} bytes)`);
  return 0;
};

export const verifyCommand: Command = async (argv, io) => {
  if (!arity(argv, 2, "lineup verify BUNDLE TRUSTED_KEYS.json", io)) return 2;
  const verified = await verifyFile(argv[0]!, argv[1]!);
  if (!verified.ok) return refused(io, verified.error);
  const { manifest, keyId, fileList, sha256 } = verified.value;
  io.out(`verified ${manifest.app_scope} ${manifest.version}: ${fileList.length} files, signed by ${keyId}, sha256 ${sha256}`);
  return 0;
};
