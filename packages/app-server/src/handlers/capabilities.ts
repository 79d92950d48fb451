/** `capability/list`: the caller's methods, the server's features, and a session's current tools. No internal paths. */
import { methodsForRole, SERVER_FEATURES, type MethodParams, type MethodResult } from "@lineup/protocol";
import { findInventory } from "../store/inventories.js";
import { visibleSession, type CallContext } from "./context.js";

export async function listCapabilities(ctx: CallContext, params: MethodParams<"capability/list">): Promise<MethodResult<"capability/list">> {
  const result: MethodResult<"capability/list"> = {
    role: ctx.principal.role,
    methods: methodsForRole(ctx.principal.role),
    features: SERVER_FEATURES.map((f) => ({ ...f })),
  };
  if (params.session_id !== undefined) {
    const session = await visibleSession(ctx, params.session_id);
    const inventory = await findInventory(ctx.services.db, session.session_id);
    result.session = {
      session_id: session.session_id,
      inventory_revision: session.inventory_revision,
      tools: (inventory?.tools ?? []).map((t) => ({ app_scope: t.app_scope, method: t.method, contract_version: t.contract_version, title: t.title })),
    };
  }
  return result;
}
