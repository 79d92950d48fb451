/**
 * The webview's permission asks the host page said were coming (host channel `permission.expect`). WebKit's
 * `permission-request` does not say which frame asks, so the native side allows an ask only when the host page
 * told it first: one told ask allows one ask of that kind, within `HOST_CHANNEL_EXPECTED_ASK_MS`. Pure: the
 * clock is passed in.
 */
import { HOST_CHANNEL_EXPECTED_ASK_MS, type HostChannelParams } from "@lineup/protocol";

export type ExpectedPermission = HostChannelParams<"permission.expect">["permission"];

export interface ExpectedAsks {
  /** The host page is about to ask for `permission`. */
  expect(permission: ExpectedPermission): void;
  /** True when an ask of `permission` was told and has not expired; that one is used up. */
  take(permission: ExpectedPermission): boolean;
}

export function createExpectedAsks(now: () => number = Date.now, holdMs: number = HOST_CHANNEL_EXPECTED_ASK_MS): ExpectedAsks {
  // Per permission, when each told ask expires, oldest first.
  const told = new Map<ExpectedPermission, number[]>();
  return {
    expect(permission) {
      const list = told.get(permission) ?? [];
      list.push(now() + holdMs);
      told.set(permission, list);
    },
    take(permission) {
      const list = told.get(permission);
      if (list === undefined) return false;
      const at = now();
      while (list.length > 0 && list[0]! <= at) list.shift();
      return list.shift() !== undefined;
    },
  };
}
