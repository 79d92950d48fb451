/**
 * What an app's tool handlers reach at run time. The tools module is also loaded by the build (in
 * Node, to emit the manifest's `tools`), so it must not touch the DOM or the bridge when imported:
 * the app provides its live store or service here once it has loaded, and a call that arrives
 * before that fails with `handler_failed`.
 */
import { ToolFailure } from "./failure.js";

export interface LateBound<T> {
  /** The app has loaded (`undefined`: it is gone again). */
  provide(value: T | undefined): void;
  /** The live value; throws `ToolFailure` `handler_failed` ("<what> has not finished loading") before `provide`. */
  get(): T;
}

export function lateBound<T>(what: string): LateBound<T> {
  let current: T | undefined;
  return {
    provide(value) {
      current = value;
    },
    get() {
      if (current === undefined) throw new ToolFailure("handler_failed", `${what} has not finished loading`);
      return current;
    },
  };
}
