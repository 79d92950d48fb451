/** The revisioned tool inventory of a session: published by the device, read by the agent. */
import type { JsonObject, MethodParams, MethodResult } from "@lineup/protocol";
import { findInventory, saveInventory } from "../store/inventories.js";
import { findSession, setInventoryRevision } from "../store/sessions.js";
import { actorOf, refuse, visibleSession, type CallContext, sessionPrecheck } from "./context.js";

export function publishInventory(ctx: CallContext, params: MethodParams<"inventory/publish">) {
  const { services, principal } = ctx;
  return services.idempotent.run(principal, "inventory/publish", params, async (w): Promise<MethodResult<"inventory/publish">> => {
    const current = (await findSession(w.db, params.session_id))!.inventory_revision;
    if (params.revision <= current) throw refuse("stale_inventory_revision", `revision ${params.revision} is not above the current ${current}`, "/revision");
    const { session_id, idempotency_key: _key, after_key: _after, ...published } = params;
    const event = await w.append(session_id, "inventory.published", actorOf(principal), published as unknown as JsonObject);
    await saveInventory(w.db, { session_id, ...published, published_at: w.now, seq: event.seq });
    await setInventoryRevision(w.db, params.session_id, params.revision);
    return { session_id: params.session_id, revision: params.revision, seq: event.seq };
  }, sessionPrecheck(principal, params.session_id));
}

export async function readInventory(ctx: CallContext, params: MethodParams<"inventory/read">): Promise<MethodResult<"inventory/read">> {
  await visibleSession(ctx, params.session_id);
  return { session_id: params.session_id, inventory: await findInventory(ctx.services.db, params.session_id) ?? null };
}
