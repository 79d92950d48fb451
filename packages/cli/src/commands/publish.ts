/**
 * `lineup publish BUNDLE --publisher publisher.pub.json --url ws://HOST:PORT/rpc (--token T | --credentials FILE)`:
 * uploads a signed bundle to the AppServer's catalog as a device (`catalog/publish`, chunk by chunk). The
 * server verifies the signature against the publisher key and refuses with the bundle's reason code.
 */
import { createHash, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { nodeWebSocketTransport, tokenFrom } from "@lineup/agent-sdk/node";
import { RpcClient } from "@lineup/agent-sdk";
import { APP_SERVER_PROTOCOL_VERSION, LineUpError, UsageError, type AppServerInitializeResult, type CatalogRelease, type JsonObject } from "@lineup/protocol";
import { readTrustedKeys } from "@lineup/runtime/node";
import type { Command, LoadedCommand } from "../io.js";

export const PUBLISH_USAGE = `usage: lineup publish BUNDLE --publisher publisher.pub.json --url ws://HOST:PORT/rpc (--token TOKEN | --credentials dev-credentials.json)
  BUNDLE        a signed bundle (lineup sign)
  --publisher   the public key it is signed with, as lineup keygen wrote it
  --url         the AppServer's WebSocket endpoint
  --token       a device token (or --credentials: a dev-credentials.json's device_token; or LINEUP_DEVICE_TOKEN)`;

export const publishCommand: Command = async (argv, io) => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { publisher: { type: "string" }, url: { type: "string" }, token: { type: "string" }, credentials: { type: "string" } },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError("expected one BUNDLE");
  const token = tokenFrom(values, "device_token", process.env);
  if (values.publisher === undefined || values.url === undefined || token === undefined) throw new UsageError("--publisher, --url and --token (or --credentials) are required");
  const keys = await readTrustedKeys(values.publisher);
  if (!keys.ok) throw new LineUpError(keys.error.code, keys.error.message);
  if (keys.value.length !== 1) throw new UsageError(`${values.publisher} must hold one publisher key`);
  const bundle = await readFile(positionals[0]!);
  const release = await publishBundle(values.url, token, bundle, keys.value[0]!);
  io.out(`published ${release.app_scope} ${release.version} (${release.size} bytes, sha256 ${release.sha256}) signed by ${release.publisher.key_id}`);
  return 0;
};

/** Uploads `bundle` to the catalog of the AppServer at `url` as the device of `token`; the published release. */
export async function publishBundle(url: string, token: string, bundle: Uint8Array, publisher: { readonly key_id: string; readonly public_key: string }): Promise<CatalogRelease> {
  const connection = await nodeWebSocketTransport().connect(url);
  const rpc = new RpcClient(connection, { defaultTimeoutMs: 60_000 });
  try {
    const init = (await rpc.request("initialize", { protocol_version: APP_SERVER_PROTOCOL_VERSION, client_info: { name: "lineup-publish", version: "0.1.0" }, token })) as unknown as AppServerInitializeResult;
    if (init.role !== "device") throw new LineUpError("forbidden", `this token belongs to a ${init.role}: publishing takes a device token`);
    rpc.notify("initialized", {});
    const chunk = init.limits.max_chunk_bytes;
    const sha256 = createHash("sha256").update(bundle).digest("hex");
    const uploadId = `publish-${randomUUID()}`;
    for (let offset = 0; ; offset += chunk) {
      const data = Buffer.from(bundle.subarray(offset, offset + chunk)).toString("base64");
      const params = { idempotency_key: `${uploadId}:${offset}`, upload_id: uploadId, size: bundle.byteLength, sha256, publisher: { ...publisher }, offset, data };
      const answer = (await rpc.request("catalog/publish", params as JsonObject)) as { complete: boolean; release?: CatalogRelease };
      if (answer.complete) return answer.release!;
    }
  } finally {
    rpc.close();
  }
}

export const publishCli: LoadedCommand = { run: publishCommand, usage: PUBLISH_USAGE };
