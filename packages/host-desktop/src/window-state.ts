/** The window's size between runs (GTK 4 leaves the position to the window manager). Pure parse and bounds. */
export interface WindowState {
  readonly width: number;
  readonly height: number;
  readonly maximized: boolean;
}

export const DEFAULT_WINDOW: WindowState = { width: 1100, height: 760, maximized: false };
const MIN = { width: 480, height: 360 };
const MAX = 16_384;

/** A saved state read back; anything unreadable or out of bounds gives the default (never a broken window). */
export function parseWindowState(text: string | undefined): WindowState {
  if (text === undefined) return DEFAULT_WINDOW;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return DEFAULT_WINDOW;
  }
  if (typeof value !== "object" || value === null) return DEFAULT_WINDOW;
  const { width, height, maximized } = value as Record<string, unknown>;
  const size = (n: unknown, min: number) => (typeof n === "number" && Number.isInteger(n) && n >= min && n <= MAX ? n : undefined);
  const w = size(width, MIN.width);
  const h = size(height, MIN.height);
  if (w === undefined || h === undefined) return DEFAULT_WINDOW;
  return { width: w, height: h, maximized: maximized === true };
}

/** The window as a person sees it, told to the page (the host channel's `window.state` push). */
export type WindowShown = "shown" | "hidden" | "minimized";

/** Hidden when not visible or not mapped (hidden by the program, or its surface gone), else minimized when the toplevel says so. */
export function windowShown(visible: boolean, mapped: boolean, minimized: boolean): WindowShown {
  if (!visible || !mapped) return "hidden";
  return minimized ? "minimized" : "shown";
}
