/**
 * Formatting for the App Registry and Settings apps: byte counts in bytes/KB/MB (numbers and words in
 * the UI language), publisher key ids shortened for reading, and RFC 3339 times as a UTC date and time
 * written the UI language's way.
 */
import { format, t } from "../../i18n/index.js";

const KB = 1024;
const MB = 1024 * 1024;

/** `512 bytes`, `1.5 KB`, `12.3 MB` (binary units, one decimal, none for whole numbers), in the UI language. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return t("common.unknown");
  if (bytes < KB) return t("bytes.byte", { n: Math.round(bytes) });
  const [value, unit] = bytes < MB ? [bytes / KB, "KB"] : [bytes / MB, "MB"];
  const rounded = Math.round(value * 10) / 10;
  // 1023.96 KB rounds to 1024.0: say 1 MB instead.
  if (unit === "KB" && rounded >= 1024) return `${format().number(1)} MB`;
  return `${format().number(rounded, { maximumFractionDigits: 1 })} ${unit}`;
}

/** The first 8 and last 4 hex digits of a 64-digit key id: enough to tell keys apart at a glance. */
export function shortKeyId(keyId: string): string {
  return keyId.length <= 16 ? keyId : `${keyId.slice(0, 8)}…${keyId.slice(-4)}`;
}

/** `Nov 30, 2026, 08:42 UTC` (`2026年11月30日 UTC 08:42`; with seconds on request) from an RFC 3339 timestamp; the text itself when it is not one. */
export function formatTime(iso: string, options: { readonly seconds?: boolean } = {}): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return format().date(ms, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    ...(options.seconds === true ? { second: "2-digit" } : {}),
    hourCycle: "h23",
    timeZone: "UTC",
    timeZoneName: "short",
  });
}
