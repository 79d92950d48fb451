/**
 * The instance lifecycle of spec 4.4 as a tagged union and a table of legal transitions:
 *
 *   not_running → launching → active → backgrounded → suspended
 *                                          ↘ restoring → active
 *   active / suspended → closing → closed
 *                            ↘ failed
 *
 * `active` is the foreground: at most one instance is active, and it is the top of the focus stack.
 * The table adds what the diagram implies: any live state may close or fail; a backgrounded
 * instance returns to the foreground directly; an instance that finishes launching or restoring
 * while another has the focus lands in the background.
 */

export type InstanceLifecycle =
  | { readonly status: "launching"; readonly since: number }
  | { readonly status: "active"; readonly since: number }
  | { readonly status: "backgrounded"; readonly since: number }
  | { readonly status: "suspended"; readonly since: number }
  | { readonly status: "restoring"; readonly since: number }
  | { readonly status: "closing"; readonly since: number }
  | { readonly status: "closed"; readonly since: number }
  | { readonly status: "failed"; readonly since: number; readonly reason: string };

export type InstanceStatus = InstanceLifecycle["status"];

export const INSTANCE_TRANSITIONS: Readonly<Record<InstanceStatus, readonly InstanceStatus[]>> = {
  launching: ["active", "backgrounded", "closing", "failed"],
  active: ["backgrounded", "closing", "failed"],
  backgrounded: ["active", "suspended", "closing", "failed"],
  suspended: ["restoring", "closing", "failed"],
  restoring: ["active", "backgrounded", "closing", "failed"],
  closing: ["closed", "failed"],
  closed: [],
  failed: [],
};

export function isLegalInstanceTransition(from: InstanceStatus, to: InstanceStatus): boolean {
  return INSTANCE_TRANSITIONS[from].includes(to);
}

/** Live instances have a surface or can get one back; they may sit in the focus stack. */
export function isLive(status: InstanceStatus): boolean {
  return status === "launching" || status === "active" || status === "backgrounded" || status === "suspended" || status === "restoring";
}
