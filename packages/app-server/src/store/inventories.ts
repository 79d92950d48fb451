/** The latest published inventory of each session, and the envelope ids already in each log. */
import type { Inventory, InventoryTool } from "@lineup/protocol";
import type { Db } from "./sql.js";

/** The parts of an inventory besides its tools, kept together in `contents` (absent in one published before them). */
type InventoryContents = Pick<Inventory, "apps" | "components" | "surfaces" | "capabilities">;

export async function findInventory(db: Db, sessionId: string): Promise<Inventory | undefined> {
  const row = await db.get<{ revision: number; tools: string; contents: string | null; published_at: string; seq: number }>(
    "SELECT revision, tools, contents, published_at, seq FROM inventories WHERE session_id = ?",
    [sessionId],
  );
  if (row === undefined) return undefined;
  const contents = row.contents === null ? {} : (JSON.parse(row.contents) as InventoryContents);
  return { session_id: sessionId, revision: row.revision, tools: JSON.parse(row.tools) as InventoryTool[], ...contents, published_at: row.published_at, seq: row.seq };
}

export async function saveInventory(db: Db, inventory: Inventory): Promise<void> {
  const { apps, components, surfaces, capabilities } = inventory;
  const contents: InventoryContents = {
    ...(apps === undefined ? {} : { apps }),
    ...(components === undefined ? {} : { components }),
    ...(surfaces === undefined ? {} : { surfaces }),
    ...(capabilities === undefined ? {} : { capabilities }),
  };
  await db.run(
    `INSERT INTO inventories (session_id, revision, tools, contents, published_at, seq) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET revision = excluded.revision, tools = excluded.tools, contents = excluded.contents, published_at = excluded.published_at, seq = excluded.seq`,
    [inventory.session_id, inventory.revision, JSON.stringify(inventory.tools), Object.keys(contents).length === 0 ? null : JSON.stringify(contents), inventory.published_at, inventory.seq],
  );
}

/**
 * Sessions that claim an inventory revision with no inventory stored (the inventory table was wiped or restored
 * apart from the sessions) report revision 0 again, as before their first publication: a device that published to
 * one then finds the server below its acknowledged revision when it connects, and publishes again. The number of
 * sessions so set back.
 */
export async function forgetMissingInventories(db: Db): Promise<number> {
  return (await db.run("UPDATE sessions SET inventory_revision = 0 WHERE inventory_revision > 0 AND NOT EXISTS (SELECT 1 FROM inventories WHERE inventories.session_id = sessions.session_id)", [])).changes;
}

/** Records that the envelope is in the log at `seq`; false (nothing written) when its id already is. */
export async function recordEnvelope(db: Db, sessionId: string, envelopeId: string, seq: number): Promise<boolean> {
  return (await db.run("INSERT INTO envelopes (session_id, envelope_id, seq) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", [sessionId, envelopeId, seq])).changes === 1;
}
