/** `initialize`: the token fixes role and identity for the life of the connection. */
import { APP_SERVER_PROTOCOL_VERSION, SERVER_FEATURES, type MethodParams, type MethodResult } from "@lineup/protocol";
import type { Connection } from "../connection.js";
import { tenantOfUser } from "../store/accounts.js";
import { findPrincipal } from "../store/principals.js";
import { refuse, type Services } from "./context.js";

const FEATURE_NAMES = SERVER_FEATURES.map((feature) => feature.name);

/** The connection's later requests wait for it (`Connection.initializing`): each is validated for the role it sets. */
export async function initialize(services: Services, connection: Connection, params: MethodParams<"initialize">): Promise<MethodResult<"initialize">> {
  if (params.token === undefined) throw refuse("unauthorized", "initialize needs a token");
  const principal = await findPrincipal(services.db, params.token);
  if (principal === undefined) throw refuse("unauthorized", "the token is not known to this server");
  // A device learns its user's tenant: the Runtime applies its app allowlist and policy defaults.
  const tenant = principal.role === "device" ? await tenantOfUser(services.db, principal.user_id) : undefined;
  connection.principal = principal;
  connection.clientName = params.client_info.name;
  services.directory.add(connection);
  services.logger.info("connection initialized", { connection: connection.id, principal: principal.key, client: params.client_info.name });
  return {
    protocol_version: APP_SERVER_PROTOCOL_VERSION,
    server_info: { ...services.serverInfo },
    role: principal.role,
    identity: principal.role === "device" ? { user_id: principal.user_id, device_id: principal.device_id } : { agent_id: principal.agent_id },
    limits: { ...services.limits },
    server_time: services.clock.now(),
    features: FEATURE_NAMES,
    ...(tenant === undefined ? {} : { tenant: { tenant_id: tenant.tenant_id, ...(tenant.app_allowlist === null ? {} : { app_allowlist: [...tenant.app_allowlist] }), policy: tenant.policy } }),
  };
}
