/**
 * The bytes of a file the user picked, and the picker reset so choosing the same file again is a
 * new choice. Browser-only (File, HTMLInputElement).
 */

export interface PickedFile {
  readonly name: string;
  readonly bytes: Uint8Array;
}

/** Reads the first picked file, or undefined when the picker was dismissed. */
export async function takePickedFile(input: HTMLInputElement): Promise<PickedFile | undefined> {
  const file = input.files?.[0];
  if (file === undefined) return undefined;
  try {
    return { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
  } finally {
    input.value = "";
  }
}
