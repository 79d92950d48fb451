/** Compiles an AssemblyScript back-end with the host's ABI (memory imported, capped at `maxPages`), as the app build does. */
import asc from "assemblyscript/asc";

export async function compileBackend(file: string, maxPages = 256): Promise<Uint8Array> {
  let wasm: Uint8Array | undefined;
  const errors: string[] = [];
  const result = await asc.main([file, "--outFile", "module.wasm", "--importMemory", "--initialMemory", "1", "--maximumMemory", String(maxPages), "--optimize", "--runtime", "incremental"], {
    writeFile: (name: string, contents: Uint8Array | string) => {
      if (name.endsWith(".wasm") && contents instanceof Uint8Array) wasm = contents;
    },
    stdout: { write: () => true } as never,
    stderr: { write: (text: string | Uint8Array) => (errors.push(String(text)), true) } as never,
  });
  if (result.error !== null || wasm === undefined) throw new Error(`${file}: ${result.error?.message ?? "no module"}\n${errors.join("")}`);
  return wasm;
}
