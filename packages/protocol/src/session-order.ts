/**
 * The order of a person's conversations (App Server sessions): by when each was started, oldest first. `created_at`
 * is ISO 8601 in UTC, so text order is time order; those started in the same instant go by id, and one with no start
 * time (a record kept before it was) goes first. The same order on every device and after every restart.
 */
export function compareSessionStarts(aStarted: string | undefined, aId: string, bStarted: string | undefined, bId: string): number {
  const a = aStarted ?? "";
  const b = bStarted ?? "";
  if (a !== b) return a < b ? -1 : 1;
  return aId < bId ? -1 : aId > bId ? 1 : 0;
}
