/**
 * The whole-manifest validator, imported only by `import()` where a bundle is read (verify, pack): a bundler
 * puts it in a chunk of its own, so a host page parses it when the person installs or updates an app, not
 * before its first paint. Nothing else in the Runtime checks a whole manifest: an installed app's manifest
 * was checked when its bundle was verified.
 */
export { decodeManifest, validateManifest } from "@lineup/protocol";
