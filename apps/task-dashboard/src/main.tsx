/**
 * The task dashboard's entry: connect to the Runtime over the Surface Bridge, serve the agent tool, list and
 * follow this app's tasks, render, then say `ready`. Opened outside LineUp (no host hands over a port), it
 * says where to use it.
 */
import { render } from "preact";
import { connectSurface, type Surface } from "@lineup/surface-sdk";
import { pickableFiles } from "./model/files.js";
import { TaskStore, type TaskPort } from "./task-store.js";
import { tools } from "./tools.js";
import { App } from "./ui/App.js";
import "./ui/styles.css";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** A submission's idempotency key. `crypto.getRandomValues` works in an opaque-origin sandbox, where `randomUUID` may not. */
function newKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let key = "td-";
  for (const b of bytes) key += ALPHABET[b % ALPHABET.length];
  return key;
}

const offlinePort: TaskPort = {
  startTask: () => Promise.reject(new Error("not connected to LineUp")),
  tasks: async () => [],
  task: () => Promise.reject(new Error("not connected to LineUp")),
  exportEvidence: () => Promise.reject(new Error("not connected to LineUp")),
};

async function start(): Promise<void> {
  const root = document.getElementById("app");
  if (root === null) return;
  // No host hands over a port when the page is opened outside LineUp.
  const surface: Surface | undefined = await connectSurface({ tools }).catch(() => undefined);
  if (surface === undefined) {
    const offline = new TaskStore(offlinePort);
    render(<App store={offline} listFiles={async () => []} newKey={newKey} standalone locale={navigator.language} />, root);
    return;
  }
  const port: TaskPort = {
    startTask: (request) => surface.agent.startTask(request),
    tasks: () => surface.agent.tasks(),
    task: (taskId) => surface.agent.task(taskId),
    exportEvidence: (taskId) => surface.evidence.export({ task_id: taskId }),
  };
  const store = new TaskStore(port, { onError: (error) => console.error("task dashboard: a listener failed", error) });
  const listFiles = async () => pickableFiles(await surface.artifacts.list());
  render(<App store={store} listFiles={listFiles} newKey={newKey} locale={surface.app.locale} onLocaleChange={surface.followLocale} />, root);
  surface.lifecycle.on("closing", () => store.dispose());
  // The list is asked for before `ready` (a reload shows the tasks at once), but `ready` does not wait for it.
  const loaded = store.load();
  await surface.lifecycle.ready();
  await loaded;
}

void start();
