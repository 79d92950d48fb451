/**
 * A small app for the desktop host's capability test: one button per native capability, each asking the
 * Capability Gateway and writing what came back into its log (`#log li`).
 */
import { connectSurface } from "@lineup/surface-sdk";

export const CAPS_APP = { app_scope: "caps-probe", name: "Caps", file: "caps-probe.lineup" } as const;
export const CAPS_MANIFEST = {
  format: "lineup.app.v1",
  app_scope: CAPS_APP.app_scope,
  version: "1.0.0",
  name: CAPS_APP.name,
  description: "Asks for a file, saves one and notifies, so a test can watch the desktop do each natively.",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "capability.request.v1"] },
  entrypoints: [{ id: "main", kind: "primary", default_eligible: true, display_modes: ["foreground"], path: "index.html", title: CAPS_APP.name }],
  capabilities: [
    { name: "file.pick", purpose: "Read the note you choose." },
    { name: "file.save", purpose: "Save the note where you choose." },
    { name: "notification.show", purpose: "Tell you when the note is ready." },
    { name: "microphone.record", purpose: "Record a voice note." },
  ],
} as const;

export async function run(): Promise<void> {
  const surface = await connectSurface();
  const root = document.getElementById("app")!;
  const log = document.createElement("ol");
  log.id = "log";
  const write = (line: string): void => {
    const item = document.createElement("li");
    item.textContent = line;
    log.append(item);
  };
  const button = (label: string, action: () => Promise<unknown>): void => {
    const element = document.createElement("button");
    element.textContent = label;
    element.style.cssText = "display:block;margin:8px;padding:12px 24px;font-size:16px";
    element.addEventListener("click", () => void action().then((result) => write(`${label}: ${JSON.stringify(result)}`)));
    root.append(element);
  };
  button("Pick", () => surface.capabilities.request({ capability: "file.pick", purpose: "Read the note you choose.", input: {} }));
  button("Save", () => surface.capabilities.request({ capability: "file.save", purpose: "Save the note where you choose.", input: { name: "note.txt", mime_type: "text/plain", data: btoa("saved by the desktop") } }));
  button("Notify", () => surface.capabilities.request({ capability: "notification.show", purpose: "Tell you when the note is ready.", input: { title: "The note is ready", body: "Open Caps to read it." } }));
  button("Record", () => surface.capabilities.request({ capability: "microphone.record", purpose: "Record a voice note.", input: { max_ms: 10_000 } }));
  root.append(log);
  await surface.lifecycle.ready();
}
