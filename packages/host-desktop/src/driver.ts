/**
 * The test driver (`--driver`): JSON commands on standard input, one per line; answers and events on
 * standard output as `LINEUP-DRIVER <json>` lines. The top frame is evaluated directly (the page's own
 * world); other frames are reached through the driver's isolated world (`page-scripts.ts` frameDriver).
 * Never on in a person's window: only the `--driver` flag turns it on.
 */
import Gdk from "gi://Gdk?version=4.0";
import Graphene from "gi://Graphene";
import JavaScriptCore from "gi://JavaScriptCore?version=6.0";
import GLib from "gi://GLib";
import WebKit from "gi://WebKit?version=6.0";
import type Gtk from "gi://Gtk?version=4.0";
import { readLines, writeLine } from "./io.js";
import { DRIVER_WORLD, type FrameCommand } from "./page-scripts.js";

export const DRIVER_PREFIX = "LINEUP-DRIVER ";

type Command =
  | { readonly id: number; readonly op: "eval"; readonly body: string; readonly world?: string }
  | { readonly id: number; readonly op: "frames"; readonly command: Omit<FrameCommand, "id">; readonly wait_ms?: number }
  | { readonly id: number; readonly op: "snapshot"; readonly path: string }
  | { readonly id: number; readonly op: "window" }
  | { readonly id: number; readonly op: "clipboard" }
  | { readonly id: number; readonly op: "window-hide" | "window-show" | "window-minimize" }
  | { readonly id: number; readonly op: "close" };

export function emit(message: Record<string, unknown>): void {
  writeLine(DRIVER_PREFIX + JSON.stringify(message));
}

interface WaitingFrame {
  readonly url: string;
  readonly reply: WebKit.ScriptMessageReply;
  readonly context: JavaScriptCore.Context;
}

export function startDriver(options: { readonly view: WebKit.WebView; readonly manager: WebKit.UserContentManager; readonly window: Gtk.Window; readonly close: () => void }): void {
  const { view, manager, window } = options;
  const answer = (id: number, value: unknown) => emit({ id, ok: true, value });
  const refuse = (id: number, error: unknown) => emit({ id, ok: false, error: error instanceof Error ? error.message : String(error) });

  // Frames waiting for a command, and the command in flight with its outcomes (in arrival order). A frame asks
  // for its next command only after answering the last one, so one that asks while a command is in flight and
  // did not answer it had not been waiting when it went out: it gets it now, so no frame misses a command.
  let waiting: WaitingFrame[] = [];
  let inFlight: { id: number; command: FrameCommand; sent: number; outcomes: { url: string; result: unknown }[] } | undefined;
  let nextFrameCommand = 1_000_000;
  const send = (frame: WaitingFrame, command: FrameCommand) => frame.reply.return_value(JavaScriptCore.Value.new_string(frame.context, JSON.stringify(command)));
  manager.connect(`script-message-with-reply-received::${DRIVER_WORLD}`, (_manager, value, reply) => {
    let message: { url?: string; id?: number; result?: unknown };
    try {
      message = JSON.parse(value.to_string()) as typeof message;
    } catch {
      return false;
    }
    const frame: WaitingFrame = { url: String(message.url), reply, context: value.get_context() };
    if (inFlight !== undefined && message.id === inFlight.id) {
      inFlight.outcomes.push({ url: frame.url, result: message.result });
      waiting.push(frame);
    } else if (inFlight !== undefined) {
      inFlight.sent += 1;
      send(frame, inFlight.command);
    } else {
      waiting.push(frame);
    }
    return true;
  });

  const frames = (id: number, command: Omit<FrameCommand, "id">, waitMs: number) => {
    const frameCommand = { ...command, id: nextFrameCommand++ } as FrameCommand;
    const targets = waiting;
    waiting = [];
    inFlight = { id: frameCommand.id, command: frameCommand, sent: targets.length, outcomes: [] };
    for (const frame of targets) send(frame, frameCommand);
    const started = GLib.get_monotonic_time();
    GLib.timeout_add(GLib.PRIORITY_DEFAULT, 20, () => {
      const flight = inFlight!;
      const elapsed = (GLib.get_monotonic_time() - started) / 1000;
      // Every frame that got it has answered (after a short grace for frames between two asks), or time is up.
      if ((flight.outcomes.length < flight.sent || flight.sent === 0 || elapsed < 100) && elapsed < waitMs) return true;
      inFlight = undefined;
      answer(id, flight.outcomes);
      return false;
    });
  };

  const run = (command: Command) => {
    switch (command.op) {
      case "eval":
        return view.call_async_javascript_function(command.body, -1, null, command.world ?? null, null, null, (_view, result) => {
          try {
            const value = view.call_async_javascript_function_finish(result);
            answer(command.id, value.is_undefined() ? null : JSON.parse(value.to_json(0) ?? "null"));
          } catch (error) {
            refuse(command.id, error);
          }
        });
      case "frames":
        return frames(command.id, command.command, command.wait_ms ?? 2_000);
      case "snapshot":
        return view.get_snapshot(WebKit.SnapshotRegion.VISIBLE, WebKit.SnapshotOptions.NONE, null, (_view, result) => {
          try {
            view.get_snapshot_finish(result).save_to_png(command.path);
            answer(command.id, command.path);
          } catch (error) {
            refuse(command.id, error);
          }
        });
      case "window": {
        const [width, height] = window.get_default_size();
        // The page's top-left corner in the window's X surface (client-side decorations add a margin).
        const [sx, sy] = window.get_surface_transform();
        const [, origin] = view.compute_point(window, new Graphene.Point({ x: 0, y: 0 }));
        return answer(command.id, { title: window.get_title(), width, height, maximized: window.is_maximized(), page_x: sx + origin.x, page_y: sy + origin.y });
      }
      case "clipboard": {
        const display = Gdk.Display.get_default();
        if (display === null) return refuse(command.id, "no display");
        const clipboard = display.get_clipboard();
        return clipboard.read_text_async(null, (_clipboard, result) => {
          try {
            answer(command.id, clipboard.read_text_finish(result));
          } catch (error) {
            refuse(command.id, error);
          }
        });
      }
      // The window hidden, shown and minimized from the native side, as the desktop does it (the page hears it).
      case "window-hide":
        window.set_visible(false);
        return answer(command.id, true);
      case "window-show":
        window.present();
        return answer(command.id, true);
      case "window-minimize":
        window.minimize();
        return answer(command.id, true);
      case "close":
        answer(command.id, true);
        return options.close();
    }
  };

  readLines(
    (line) => {
      let command: Command;
      try {
        command = JSON.parse(line) as Command;
      } catch {
        return emit({ ok: false, error: `not JSON: ${line.slice(0, 80)}` });
      }
      try {
        run(command);
      } catch (error) {
        refuse(command.id, error);
      }
    },
    // The test that drives this window is gone: close as a person would.
    () => options.close(),
  );
}
