/**
 * The native host channel's codec and its generated validators, imported only by `import()` from `native-host.ts`:
 * a bundler puts them in a chunk of their own, which the page loads with its first request to the native side.
 */
export { decodeHostChannelPush, decodeHostChannelResponse, encodeHostChannelRequest } from "@lineup/protocol";
