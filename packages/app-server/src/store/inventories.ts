/** The latest published inventory of each session, and the envelope ids already in each log. */
import type { Inventory, InventoryTool } from "@lineup/protocol";
import type { Db } from "./sql.js";

export async function findInventory(db: Db, sessionId: string): Promise<Inventory | undefined> {
  const row = await db.get<{ revision: number; tools: string; published_at: string; seq: number }>("SELECT revision, tools, published_at, seq FROM inventories WHERE session_id = ?", [sessionId]);
  return row === undefined ? undefined : { session_id: sessionId, revision: row.revision, tools: JSON.parse(row.tools) as InventoryTool[], published_at: row.published_at, seq: row.seq };
}

export async function saveInventory(db: Db, inventory: Inventory): Promise<void> {
  await db.run(
    `INSERT INTO inventories (session_id, revision, tools, published_at, seq) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET revision = excluded.revision, tools = excluded.tools, published_at = excluded.published_at, seq = excluded.seq`,
    [inventory.session_id, inventory.revision, JSON.stringify(inventory.tools), inventory.published_at, inventory.seq],
  );
}

/** Records that the envelope is in the log at `seq`; false (nothing written) when its id already is. */
export async function recordEnvelope(db: Db, sessionId: string, envelopeId: string, seq: number): Promise<boolean> {
  return (await db.run("INSERT INTO envelopes (session_id, envelope_id, seq) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", [sessionId, envelopeId, seq])).changes === 1;
}
