/** Whether a person can open an app here, and where the launcher opens it (spec 4.3; issue 21). */
import { describe, expect, it } from "vitest";
import { projectManifest, type AppManifest } from "@lineup/protocol";
import { cannotOpen, decideDisable, decideInstall, launcherEntrypoint, whyCannotOpen, type AppRegistryState } from "../src/index.js";
import { candidate, coreRegistry, FULL_HOST, T0, whiteboardManifest } from "./apps-fixtures.js";

function installed(manifest: AppManifest): AppRegistryState {
  const decision = decideInstall(coreRegistry(), { operation_id: "op-1", candidate: candidate(manifest), approved: true, now: T0 }, FULL_HOST);
  expect(decision.operation.status).toBe("succeeded");
  return decision.state;
}

describe("whyCannotOpen", () => {
  it("says why in words: not installed, disabled, missing host feature, unknown page; core apps always open", () => {
    const apps = installed(whiteboardManifest());
    expect(whyCannotOpen(apps, FULL_HOST, "whiteboard")).toBeUndefined();
    expect(whyCannotOpen(apps, FULL_HOST, "whiteboard", "canvas")).toBeUndefined();
    expect(whyCannotOpen(apps, FULL_HOST, "whiteboard", "lobby")).toBe("it has no page “lobby” to open");
    expect(whyCannotOpen(apps, FULL_HOST, "nope")).toBe("it is not installed");
    // The same reasons as kinds a host words itself.
    expect(cannotOpen(apps, FULL_HOST, "nope")).toEqual({ kind: "not_installed", message: "it is not installed" });
    expect(cannotOpen(apps, FULL_HOST, "whiteboard", "lobby")).toEqual({ kind: "no_such_page", entrypoint: "lobby", message: "it has no page “lobby” to open" });
    expect(whyCannotOpen(apps, FULL_HOST, "settings")).toBeUndefined();
    // The host lost a feature the app requires since it was installed.
    expect(whyCannotOpen(apps, { features: FULL_HOST.features.filter((f) => f !== "app.tools.v1") }, "whiteboard")).toBe("this host does not offer app.tools.v1");
    const disabled = decideDisable(apps, { operation_id: "op-2", app_scope: "whiteboard", now: T0 + 1 }).state;
    expect(whyCannotOpen(disabled, FULL_HOST, "whiteboard")).toBe("it is disabled (enable it in Apps)");
  });

  it("an app with only a background entrypoint has nothing to show", () => {
    const apps = installed(whiteboardManifest("1.0.0", { entrypoints: [{ id: "sync", kind: "background", path: "index.html" }], tools: [] }));
    expect(whyCannotOpen(apps, FULL_HOST, "whiteboard")).toBe("it has nothing to show on screen");
  });
});

describe("launcherEntrypoint", () => {
  it("opens the first primary entrypoint a person may see, else the first contextual one, never a background or settings page", () => {
    const entry = (entrypoints: unknown[]) => launcherEntrypoint(projectManifest({ ...whiteboardManifest(), entrypoints } as AppManifest))?.id;
    expect(entry([{ id: "settings", kind: "settings" }, { id: "board", kind: "contextual" }, { id: "home", kind: "primary" }])).toBe("home");
    expect(entry([{ id: "sync", kind: "background" }, { id: "board", kind: "contextual", display_modes: ["pip"] }])).toBe("board");
    expect(entry([{ id: "card", kind: "contextual", display_modes: ["inline_card"] }, { id: "settings", kind: "settings" }])).toBeUndefined();
  });
});
