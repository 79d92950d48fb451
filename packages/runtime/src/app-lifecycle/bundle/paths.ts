/**
 * The path grammar of bundle entries: portable relative POSIX paths that mean the same file on
 * every host file system and in every URL, and need no escaping in JSON.
 *
 * A path is 1–32 segments joined by `/`, at most 512 characters. A segment is 1–255 characters of
 * `A–Z a–z 0–9 . _ - ~ @ + = ,`, does not start with `.` (no `.`, `..` or hidden files) and does not
 * end with `.`, and is not a Windows device name (`con`, `prn`, `aux`, `nul`, `com0`–`com9`,
 * `lpt0`–`lpt9`, with or without an extension, any case). Two paths that differ only in ASCII case
 * are the same file (case-insensitive file systems would merge them).
 */

const MAX_PATH_LENGTH = 512;
const MAX_SEGMENTS = 32;
const MAX_SEGMENT_LENGTH = 255;
const SEGMENT = /^[A-Za-z0-9_\-~@+=,][A-Za-z0-9._\-~@+=,]*$/;
const DEVICE_NAME = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\.|$)/i;

/** Why `path` is not a safe bundle path, or undefined when it is. */
export function unsafePathReason(path: string): string | undefined {
  if (path.length === 0) return "the path is empty";
  if (path.length > MAX_PATH_LENGTH) return `the path is longer than ${MAX_PATH_LENGTH} characters`;
  if (path.includes("\0")) return "the path contains NUL";
  if (path.includes("\\")) return "the path contains a backslash";
  if (path.startsWith("/")) return "the path is absolute";
  if (/^[A-Za-z]:/.test(path)) return "the path starts with a drive letter";
  const segments = path.split("/");
  if (segments.length > MAX_SEGMENTS) return `the path has more than ${MAX_SEGMENTS} segments`;
  for (const segment of segments) {
    if (segment === "") return path.endsWith("/") ? "the entry is a directory" : "the path has an empty segment";
    if (segment === "..") return "the path has a `..` segment";
    if (segment === ".") return "the path has a `.` segment";
    if (segment.length > MAX_SEGMENT_LENGTH) return `a segment is longer than ${MAX_SEGMENT_LENGTH} characters`;
    if (segment.startsWith(".")) return `segment "${segment}" is hidden (starts with a dot)`;
    if (!SEGMENT.test(segment)) return `segment ${JSON.stringify(segment)} has a character outside A-Z a-z 0-9 . _ - ~ @ + = ,`;
    if (segment.endsWith(".")) return `segment "${segment}" ends with a dot`;
    if (DEVICE_NAME.test(segment)) return `segment "${segment}" is a reserved device name`;
  }
  return undefined;
}

/** The key under which two paths collide: ASCII lowercase (paths are ASCII by the grammar). */
export function pathCollisionKey(path: string): string {
  return path.toLowerCase();
}

/** Byte order of UTF-8 paths; for the ASCII grammar this is plain code-unit order. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
