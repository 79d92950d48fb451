/**
 * Two AppServers on one PostgreSQL database: a device revoked through one server's admin face is closed at once
 * (4003) on the other, where it is connected, and its token is refused there too; the other user's device on the
 * same server stays. (PostgreSQL only: the `app-server-postgres` test project.)
 */
import { CLOSE_CODES } from "@lineup/protocol";
import { afterAll, beforeAll, expect, it } from "vitest";
import { adminCall, startTestServer, TestClient, type TestServer } from "./helpers.js";

let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  a = await startTestServer();
  b = await startTestServer({ db: a.db! });
});

afterAll(async () => {
  await b.dispose();
  await a.dispose();
});

it("a revocation on one server closes the device's connection on the other", async () => {
  await adminCall(a, "admin/user/add", { user_id: "erin" });
  const { token } = await adminCall(a, "admin/device/add", { user_id: "erin", device_id: "erin-1" });
  const onB = await TestClient.open(b, token);
  const bystander = await TestClient.open(b, a.devCredentials!.device_token);
  expect(await adminCall(a, "admin/device/revoke", { device_id: "erin-1" })).toEqual({ device_id: "erin-1", closed_connections: 0 });
  expect((await onB.closed).code).toBe(CLOSE_CODES.revoked);
  const again = await TestClient.connect(b.url);
  expect((await again.request("initialize", { protocol_version: "lineup.app-server.v1", client_info: { name: "t" }, token })).error.data.code).toBe("unauthorized");
  expect((await bystander.call("agentSession/list")).sessions).toEqual([]);
  await again.close();
  await bystander.close();
});
