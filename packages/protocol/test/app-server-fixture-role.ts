/** The role a golden App Server fixture is sent as: its `role` field, or none (before initialize). */
import { APP_SERVER_ROLES, type AppServerRole } from "@lineup/protocol";
import type { Fixture } from "./fixture-decoders.js";

export function appServerRoleOf(f: Fixture): AppServerRole | undefined {
  const role = f["role"];
  if (role === undefined) return undefined;
  if (!(APP_SERVER_ROLES as readonly unknown[]).includes(role)) throw new Error(`fixture role must be device or agent, not ${JSON.stringify(role)}`);
  return role as AppServerRole;
}
