/**
 * Bundle commands: `lineup keygen DIR`, `lineup pack APP_DIR OUT.lineup`, `lineup sign BUNDLE KEY`,
 * `lineup verify BUNDLE TRUSTED_KEYS.json`. Refusals print the bundle reason code.
 */
import { parseArgs } from "node:util";
import { UsageError, type ProtocolError } from "@lineup/protocol";
import { keygenToFiles, packDirectory, signFile, verifyFile } from "@lineup/runtime/node";
import type { CliIo, Command, LoadedCommand } from "../io.js";

function refused(io: CliIo, error: ProtocolError): number {
  io.err(`refused: ${error.code}${error.path === undefined ? "" : ` at ${error.path}`}: ${error.message}`);
  return 1;
}

export const KEYGEN_USAGE = "usage: lineup keygen DIR   (writes DIR/publisher.key and DIR/publisher.pub.json)";
export const PACK_USAGE = "usage: lineup pack APP_DIR OUT.lineup   (APP_DIR holds lineup.app.json and the app's files)";
export const SIGN_USAGE = "usage: lineup sign BUNDLE PRIVATE_KEY";
export const VERIFY_USAGE = "usage: lineup verify BUNDLE TRUSTED_KEYS.json";

/** The command's positional arguments, exactly `names` of them; a flag or another count is a usage error. */
function positionals(argv: readonly string[], names: readonly string[]): string[] {
  const { positionals: given } = parseArgs({ args: [...argv], allowPositionals: true, options: {} });
  if (given.length !== names.length) throw new UsageError(`expected ${names.join(" ")}, got ${given.length} argument${given.length === 1 ? "" : "s"}`);
  return given;
}

export const keygenCommand: Command = async (argv, io) => {
  const [dir] = positionals(argv, ["DIR"]);
  const made = await keygenToFiles(dir!);
  if (!made.ok) return refused(io, made.error);
  io.out(`publisher key ${made.value.keyId}`);
  io.out(`  private key: ${made.value.privateKeyFile} (keep it secret)`);
  io.out(`  public key:  ${made.value.publicKeyFile} (add it to the Runtime's trusted publisher keys)`);
  return 0;
};

export const packCommand: Command = async (argv, io) => {
  const [appDir, out] = positionals(argv, ["APP_DIR", "OUT.lineup"]);
  // Progress of a large app goes to stderr, so stdout holds only the result.
  const packed = await packDirectory(appDir!, out!, { progress: (message) => io.err(message) });
  if (!packed.ok) return refused(io, packed.error);
  io.out(`packed ${packed.value.file}: ${packed.value.files} files, ${packed.value.bytes} bytes (unsigned: run lineup sign)`);
  return 0;
};

export const signCommand: Command = async (argv, io) => {
  const [bundle, key] = positionals(argv, ["BUNDLE", "PRIVATE_KEY"]);
  const signed = await signFile(bundle!, key!);
  if (!signed.ok) return refused(io, signed.error);
  io.out(`signed ${signed.value.file} (${signed.value.bytes} bytes)`);
  return 0;
};

export const verifyCommand: Command = async (argv, io) => {
  const [bundle, keys] = positionals(argv, ["BUNDLE", "TRUSTED_KEYS.json"]);
  const verified = await verifyFile(bundle!, keys!);
  if (!verified.ok) return refused(io, verified.error);
  const { manifest, keyId, fileList, sha256 } = verified.value;
  io.out(`verified ${manifest.app_scope} ${manifest.version}: ${fileList.length} files, signed by ${keyId}, sha256 ${sha256}`);
  return 0;
};

export const keygenCli: LoadedCommand = { run: keygenCommand, usage: KEYGEN_USAGE };
export const packCli: LoadedCommand = { run: packCommand, usage: PACK_USAGE };
export const signCli: LoadedCommand = { run: signCommand, usage: SIGN_USAGE };
export const verifyCli: LoadedCommand = { run: verifyCommand, usage: VERIFY_USAGE };
