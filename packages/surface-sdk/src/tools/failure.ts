/**
 * A typed failure a tool handler throws to end its call with one of the codes an app may use
 * (spec 7.3): `invalid_arguments`, `cancelled_by_user`, `permission_denied`,
 * `foreground_required`, `operation_expired`, `handler_failed`. Anything else a handler throws
 * ends the call with `handler_failed`.
 */
import { BRIDGE_APP_TOOL_ERROR_CODES } from "@lineup/protocol";

export type AppToolErrorCode = (typeof BRIDGE_APP_TOOL_ERROR_CODES)[number];

export class ToolFailure extends Error {
  readonly code: AppToolErrorCode;
  constructor(code: AppToolErrorCode, message: string) {
    super(message);
    this.name = "ToolFailure";
    this.code = code;
  }
}

export function isAppToolErrorCode(value: unknown): value is AppToolErrorCode {
  return typeof value === "string" && (BRIDGE_APP_TOOL_ERROR_CODES as readonly string[]).includes(value);
}
