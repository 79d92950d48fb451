/**
 * The host's end of the Surface Bridge decoder and its generated validators, imported only by `import()` from
 * `bridge-decoder.ts`: a bundler puts it in a chunk of its own, which the page loads with the first app frame.
 */
export { decodeBridgeMessageInHost } from "@lineup/protocol";
