/**
 * `sdk.diagnostics` (spec 6, `app.diagnostics.v1`): structured logs and errors of one app, handed to
 * the sink the host passed in `AppSdkOptions`. Nothing here ever throws — a throwing sink, data that
 * is not JSON, an error that is not an Error — and nothing carries a stack trace. The SDK's other
 * parts report their own trouble (a refused report, a throwing listener) through the same sink.
 */
import { checkJsonValue, type JsonValue } from "@lineup/protocol";
import type { AppDiagnostic, AppDiagnosticsSink, DiagnosticLevel, DiagnosticsAPI } from "./types.js";

const MAX_MESSAGE = 2_000;

/** Cuts a message to `max` characters. */
export function clip(text: string, max = MAX_MESSAGE): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The `code` of a `LineUpError`-like value, if it has a string one. */
export function codeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

/** The message of an error, first line only (a message never smuggles a stack in). */
export function messageOf(error: unknown): string {
  const raw = error instanceof Error ? error.message : typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string" ? (error as { message: string }).message : String(error);
  return clip(raw.split("\n", 1)[0] ?? "");
}

export const ignoreAppDiagnostics: AppDiagnosticsSink = () => undefined;

export interface Diagnostics extends DiagnosticsAPI {
  /** For the SDK itself: an error with the context it happened in. */
  report(context: string, error: unknown, level?: DiagnosticLevel): void;
}

export function createDiagnostics(appScope: string, sink: AppDiagnosticsSink = ignoreAppDiagnostics): Diagnostics {
  const emit = (entry: AppDiagnostic): void => {
    try {
      sink(entry);
    } catch {
      // A sink that throws must not break the app; there is nowhere further to report it.
    }
  };
  const entry = (level: DiagnosticLevel, message: string, code?: string, data?: JsonValue): AppDiagnostic => ({
    app_scope: appScope,
    level,
    message: clip(message),
    ...(code === undefined ? {} : { code }),
    ...(data === undefined ? {} : { data }),
  });
  const safeData = (data: unknown): JsonValue | undefined => {
    if (data === undefined) return undefined;
    const checked = checkJsonValue(data);
    return checked.ok ? checked.value : undefined;
  };
  return {
    log(level, message, data) {
      try {
        emit(entry(level, typeof message === "string" ? message : String(message), undefined, safeData(data)));
      } catch {
        // never throws
      }
    },
    error(error) {
      try {
        emit(entry("error", messageOf(error), codeOf(error)));
      } catch {
        // never throws
      }
    },
    report(context, error, level = "error") {
      try {
        emit(entry(level, `${context}: ${messageOf(error)}`, codeOf(error)));
      } catch {
        // never throws
      }
    },
  };
}
