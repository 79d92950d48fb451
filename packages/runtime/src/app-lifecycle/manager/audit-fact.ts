/**
 * An audit fact a decision asks the loop to record. The shape is the loop's `AuditDraft`
 * (`coordination/inputs.ts`), so the loop appends it to the hash-chained audit log in the same
 * commit as the decision's other facts — and therefore before any effect of that decision runs.
 */
import type { ErrorCode } from "@lineup/protocol";

export interface AuditFact {
  /** Dotted event name: `app.install.succeeded`, `tool.call.refused`, `capability.decision`, … */
  readonly type: string;
  readonly code?: ErrorCode;
  readonly conversation_id?: string;
  /** What the fact is about: an app scope, a call id, an instance id. */
  readonly subject?: string;
  /** A short human-readable detail; never a path, token or user content. */
  readonly detail?: string;
}
