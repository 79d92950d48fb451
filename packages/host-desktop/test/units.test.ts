/**
 * The desktop host's pure parts, in Node: the confinement's rules and navigation decision, the command line,
 * the saved window size, the native end of the host channel against the page's end, and the event names the
 * page and the native side must share.
 */
import { describe, expect, it } from "vitest";
import { decodeHostChannelPush, decodeHostChannelResponse, encodeHostChannelPush, encodeHostChannelRequest, HOST_CHANNEL_MAX_BYTES } from "@lineup/protocol";
import { NATIVE_HOST_EVENTS, NATIVE_HOST_PROTOCOL } from "../../host-web/src/bootstrap/native-host.js";
import { createChannel, type HostChannelHandlers } from "../src/channel.js";
import { createExpectedAsks } from "../src/expected-asks.js";
import { contentRules, HOME, mayNavigate } from "../src/confinement.js";
import { parseOptions } from "../src/options.js";
import { settleToken, type Keyring } from "../src/token-store.js";
import { HOST_EVENTS } from "../src/page-scripts.js";
import { DEFAULT_WINDOW, parseWindowState, windowShown } from "../src/window-state.js";
import { desktopEntry, launcherScript } from "../src/node/desktop-entry.js";

describe("confinement", () => {
  it("blocks every load first, then lets through only lineup: and the AppServer's origin", () => {
    const rules = JSON.parse(contentRules("ws://127.0.0.1:8787")) as { trigger: { "url-filter": string }; action: { type: string } }[];
    expect(rules[0]).toEqual({ trigger: { "url-filter": ".*" }, action: { type: "block" } });
    expect(rules.slice(1).map((r) => [r.action.type, r.trigger["url-filter"]])).toEqual([
      ["ignore-previous-rules", "^lineup:"],
      ["ignore-previous-rules", "^blob:lineup://app/"],
      ["ignore-previous-rules", "^ws://127\\.0\\.0\\.1:8787/"],
    ]);
    // The same filters, read as JavaScript regular expressions, match what they should and nothing else.
    const allowed = (url: string) => rules.slice(1).some((r) => new RegExp(r.trigger["url-filter"]).test(url));
    expect(allowed("ws://127.0.0.1:8787/rpc")).toBe(true);
    expect(allowed("lineup://app/assets/x.js")).toBe(true);
    expect(allowed("ws://127.0.0.1:87870/rpc")).toBe(false);
    expect(allowed("ws://127.0.0.12:8787/rpc")).toBe(false);
    expect(allowed("http://127.0.0.1:8787/rpc")).toBe(false);
    expect(allowed("https://example.com/?lineup:")).toBe(false);
    // The host page's own blob URLs; an app frame's (an opaque origin) and any other stay blocked.
    expect(allowed("blob:lineup://app/51e98f13-b79f-4c53-8409-6d30e5463981")).toBe(true);
    expect(allowed("blob:null/51e98f13-b79f-4c53-8409-6d30e5463981")).toBe(false);
    expect(allowed("blob:https://example.com/1")).toBe(false);
  });

  it("lets through the local back-end service's one URL, on its port, and nothing else on that port", () => {
    const rules = JSON.parse(contentRules("ws://127.0.0.1:8787", "ws://127.0.0.1:40001/local-backends")) as { trigger: { "url-filter": string } }[];
    const allowed = (url: string) => rules.slice(1).some((r) => new RegExp(r.trigger["url-filter"]).test(url));
    expect(allowed("ws://127.0.0.1:40001/local-backends?profile=abc")).toBe(true);
    expect(allowed("ws://127.0.0.1:40001/other?profile=abc")).toBe(false);
    expect(allowed("http://127.0.0.1:40001/local-backends?profile=abc")).toBe(false);
    expect(allowed("ws://127.0.0.1:400010/local-backends?profile=abc")).toBe(false);
  });

  it("without a configured AppServer only lineup: is let through", () => {
    expect((JSON.parse(contentRules(undefined)) as unknown[]).length).toBe(3);
  });

  it("lets frames navigate only within lineup://app/ and to the empty documents frames start with", () => {
    for (const uri of ["lineup://app/index.html", "lineup://app/surface-frame.html", "about:blank", "about:srcdoc"]) expect(mayNavigate(uri), uri).toBe(true);
    for (const uri of ["http://127.0.0.1:9/leak?x=1", "https://example.com/", "lineup://other/", "lineup://app", "file:///etc/passwd", "data:text/html,x", "blob:lineup://app/1", "javascript:alert(1)"]) expect(mayNavigate(uri), uri).toBe(false);
  });
});

describe("command line", () => {
  it("takes the built host, a config, a profile, bundles and the driver flag", () => {
    expect(parseOptions(["--dist", "d", "--config", "c.json", "--data", "p", "--bundle", "a.lineup=/x/a.lineup", "--driver"], "/home/u/.local/share/lineup/desktop")).toEqual({
      ok: true,
      value: { dist: "d", config: "c.json", dataDir: "p", bundles: [{ file: "a.lineup", path: "/x/a.lineup" }], driver: true, mockCapture: false },
    });
    expect(parseOptions(["--dist", "d"], "/def")).toEqual({ ok: true, value: { dist: "d", dataDir: "/def", bundles: [], driver: false, mockCapture: false } });
    expect(parseOptions(["--dist", "d", "--driver", "--fake-dialogs", "/t", "--mock-capture"], "/def")).toEqual({ ok: true, value: { dist: "d", dataDir: "/def", bundles: [], driver: true, mockCapture: true, fakeDialogs: "/t" } });
  });

  it("refuses what it does not know, in one line", () => {
    expect(parseOptions([], "/d")).toEqual({ ok: false, error: "--dist is required" });
    expect(parseOptions(["--dist"], "/d")).toEqual({ ok: false, error: "--dist needs a value" });
    expect(parseOptions(["--dist", "d", "--verbose"], "/d")).toEqual({ ok: false, error: "unknown option --verbose" });
    expect(parseOptions(["--dist", "d", "--bundle", "../x=/y"], "/d")).toMatchObject({ ok: false });
    // A person's window always shows the real dialogs.
    expect(parseOptions(["--dist", "d", "--fake-dialogs", "/t"], "/d")).toEqual({ ok: false, error: "--fake-dialogs is for tests: it needs --driver" });
    expect(parseOptions(["--dist", "d", "--mock-capture"], "/d")).toEqual({ ok: false, error: "--mock-capture is for tests: it needs --driver" });
  });
});

describe("window state", () => {
  it("reads back a saved size and refuses anything out of bounds", () => {
    expect(parseWindowState(JSON.stringify({ width: 900, height: 600, maximized: true }))).toEqual({ width: 900, height: 600, maximized: true });
    for (const text of [undefined, "", "{", "null", JSON.stringify({ width: 10, height: 600 }), JSON.stringify({ width: 900.5, height: 600 }), JSON.stringify({ width: 1e9, height: 600 })]) {
      expect(parseWindowState(text), String(text)).toEqual(DEFAULT_WINDOW);
    }
  });
});

describe("the host channel, native end against the page's end", () => {
  const titles: string[] = [];
  const handlers: HostChannelHandlers = {
    "host.info": () => ({ host: "desktop", platform: "linux", toolkit: "GTK 4, WebKitGTK 2.50", data_dir: "/p", notifications: false, token_storage: "none" }),
    "window.set_title": ({ title }) => (titles.push(title), {}),
    "window.present": () => ({}),
    "window.minimize": () => {
      throw new Error("no window yet");
    },
    "clipboard.write_text": () => ({}),
    "file.pick": async () => ({ files: [], over_limit: false }),
    "permission.expect": () => ({}),
    "file.save": async ({ name }) => {
      await new Promise((r) => setTimeout(r, 10));
      if (name === "broken.txt") throw new Error("the disk is full");
      return { saved: name !== "closed.txt" };
    },
  };
  const channel = createChannel(handlers);

  it("answers a request, checked on both ends", async () => {
    const answer = decodeHostChannelResponse(await channel(encodeHostChannelRequest(7, "host.info", {})), 7, "host.info");
    expect(answer).toEqual({ ok: true, value: { host: "desktop", platform: "linux", toolkit: "GTK 4, WebKitGTK 2.50", data_dir: "/p", notifications: false, token_storage: "none" } });
    expect(decodeHostChannelResponse(await channel(encodeHostChannelRequest(8, "window.set_title", { title: "LineUp — Whiteboard" })), 8, "window.set_title")).toEqual({ ok: true, value: {} });
    expect(titles).toEqual(["LineUp — Whiteboard"]);
  });

  it("refuses bad requests with typed codes, and the page reads each refusal", async () => {
    const refusal = async (text: string, id = 3) => decodeHostChannelResponse(await channel(text), id, "host.info");
    expect(await refusal("{not json")).toMatchObject({ ok: false, error: { code: "json_malformed" } });
    expect(await refusal(JSON.stringify({ channel: "lineup.host", v: 2, id: 3, method: "host.info", params: {} }))).toMatchObject({ ok: false, error: { code: "bridge_frame_invalid" } });
    expect(await refusal(JSON.stringify({ channel: "lineup.host", v: 1, id: 3, method: "shell.exec", params: { cmd: "rm -rf /" } }))).toMatchObject({ ok: false, error: { code: "method_not_found" } });
    expect(decodeHostChannelResponse(await channel(JSON.stringify({ channel: "lineup.host", v: 1, id: 4, method: "window.set_title", params: { title: "" } })), 4, "window.set_title")).toMatchObject({ ok: false, error: { code: "invalid_params" } });
    expect(decodeHostChannelResponse(await channel(JSON.stringify({ channel: "lineup.host", v: 1, id: 5, method: "window.set_title", params: { title: "x".repeat(201) } })), 5, "window.set_title")).toMatchObject({ ok: false, error: { code: "invalid_params" } });
    expect(await refusal("x".repeat(HOST_CHANNEL_MAX_BYTES + 1))).toMatchObject({ ok: false, error: { code: "json_too_large" } });
    expect(titles).toEqual(["LineUp — Whiteboard"]);
  });

  it("a handler that throws answers `failed` with the method named, never a stack", async () => {
    const answer = decodeHostChannelResponse(await channel(encodeHostChannelRequest(9, "window.minimize", {})), 9, "window.minimize");
    expect(answer).toEqual({ ok: false, error: { code: "failed", message: "window.minimize failed: no window yet" } });
  });

  it("a method that waits for the person answers when it is done, and its failure is `failed`", async () => {
    const save = async (name: string, data = "aGk=") => decodeHostChannelResponse(await channel(encodeHostChannelRequest(20, "file.save", { name, mime_type: "text/plain", data })), 20, "file.save");
    expect(await save("notes.txt")).toEqual({ ok: true, value: { saved: true } });
    expect(await save("closed.txt")).toEqual({ ok: true, value: { saved: false } });
    expect(await save("broken.txt")).toEqual({ ok: false, error: { code: "failed", message: "file.save failed: the disk is full" } });
    expect(await save("", "aGk=")).toMatchObject({ ok: false, error: { code: "invalid_params" } });
  });

  it("the page refuses an answer that is not the one it waits for, or not sound", async () => {
    expect(decodeHostChannelResponse(await channel(encodeHostChannelRequest(10, "host.info", {})), 11, "host.info")).toMatchObject({ ok: false, error: { code: "bridge_result_invalid" } });
    expect(decodeHostChannelResponse(JSON.stringify({ channel: "lineup.host", v: 1, id: 12, result: { host: "browser" } }), 12, "host.info")).toMatchObject({ ok: false, error: { code: "bridge_result_invalid" } });
    expect(decodeHostChannelResponse(42, 12, "host.info")).toMatchObject({ ok: false, error: { code: "bridge_result_invalid" } });
  });

  it("the page and the native side name the same DOM events", () => {
    expect(NATIVE_HOST_EVENTS).toEqual(HOST_EVENTS);
  });

  it("the page looks for its native host only under the scheme the native side serves it from", () => {
    expect(new URL(HOME).protocol).toBe(NATIVE_HOST_PROTOCOL);
  });
});

describe("the native side's push", () => {
  it("reads back what the native side encodes", () => {
    expect(decodeHostChannelPush(encodeHostChannelPush("window.state", { state: "minimized" }))).toEqual({ ok: true, value: { push: "window.state", params: { state: "minimized" } } });
    expect(decodeHostChannelPush(encodeHostChannelPush("host.notifications", { available: false }))).toEqual({ ok: true, value: { push: "host.notifications", params: { available: false } } });
  });

  it("the page reads the window's state in host.info (a field its validators must know, or the page runs as a plain browser)", () => {
    const info = { host: "desktop", platform: "linux", toolkit: "GTK 4", data_dir: "/d", notifications: false, token_storage: "file", window_state: "minimized" };
    expect(decodeHostChannelResponse(JSON.stringify({ channel: "lineup.host", v: 1, id: 3, result: info }), 3, "host.info")).toEqual({ ok: true, value: info });
  });

  it("refuses a push that is not sound, with typed codes", () => {
    const frame = (push: string, params: unknown) => JSON.stringify({ channel: "lineup.host", v: 1, push, params });
    const code = (text: unknown) => {
      const decoded = decodeHostChannelPush(text);
      return decoded.ok ? "ok" : decoded.error.code;
    };
    expect(code(frame("window.state", { state: "gone" }))).toBe("invalid_params");
    expect(code(frame("window.state", { state: "shown", extra: 1 }))).toBe("invalid_params");
    expect(code(frame("window.close", {}))).toBe("method_not_found");
    expect(code(JSON.stringify({ channel: "lineup.host", v: 2, push: "window.state", params: { state: "shown" } }))).toBe("bridge_frame_invalid");
    expect(code("{not json")).toBe("bridge_frame_invalid");
    expect(code(42)).toBe("bridge_frame_invalid");
  });

  it("the window is hidden when not visible or not mapped, minimized when its toplevel says so", () => {
    expect(windowShown(true, true, false)).toBe("shown");
    expect(windowShown(true, true, true)).toBe("minimized");
    expect(windowShown(false, true, false)).toBe("hidden");
    expect(windowShown(true, false, true)).toBe("hidden");
  });
});

describe("installing on a Linux desktop", () => {
  it("writes a desktop entry that runs the launcher, quoted, and a launcher that runs npm run desktop in the repository", () => {
    const entry = desktopEntry({ launcher: "/home/a b/.local/bin/lineup-desktop", icon: "/repo/favicon.svg" });
    const keys = Object.fromEntries(entry.split("\n").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
    expect(entry.startsWith("[Desktop Entry]\n")).toBe(true);
    expect(keys).toMatchObject({ Type: "Application", Name: "LineUp", Exec: '"/home/a b/.local/bin/lineup-desktop"', Icon: "/repo/favicon.svg", Terminal: "false" });
    expect(desktopEntry({ launcher: '/x/"$y' })).toContain('Exec="/x/\\\\"\\\\$y"');
    const launcher = launcherScript("/work/it's here");
    expect(launcher.split("\n")).toEqual(["#!/bin/sh", "# LineUp desktop host launcher, written by npm run desktop -- --install.", "cd '/work/it'\\''s here' || exit 1", 'exec npm run --silent desktop -- "$@"', ""]);
  });
});

describe("where the device token rests", () => {
  const keyring = (works: boolean): Keyring & { kept: Map<string, string> } => {
    const kept = new Map<string, string>();
    return { kept, store: (url, token) => (works ? (kept.set(url, token), true) : false), lookup: (url) => kept.get(url) };
  };
  const config = { server_url: "ws://127.0.0.1:8787/rpc", device_token: "secret-1", trusted_publishers: [] };

  it("moves the token into the keyring, and the file keeps everything else; the next start takes it from there", () => {
    const ring = keyring(true);
    const written: [string, string][] = [];
    const first = settleToken(config, "/p/config.json", ring, (path, text) => written.push([path, text]));
    expect(first).toMatchObject({ config, storage: "keyring" });
    expect(ring.kept.get(config.server_url)).toBe("secret-1");
    expect(written).toHaveLength(1);
    const rest = JSON.parse(written[0]![1]) as Record<string, unknown>;
    expect(rest).toEqual({ server_url: config.server_url, trusted_publishers: [] });
    // The next start: the file has no token; the page still gets it.
    expect(settleToken(rest, "/p/config.json", ring, () => expect.fail("nothing to write"))).toEqual({ config: { ...rest, device_token: "secret-1" }, storage: "keyring" });
  });

  it("without a keyring keeps the token in the file, rewritten for this user alone, and says so", () => {
    const written: string[] = [];
    const settled = settleToken(config, "/p/config.json", keyring(false), (path) => written.push(path));
    expect(settled).toMatchObject({ config, storage: "file", notice: expect.stringContaining("no keyring answers here") });
    expect(written).toEqual(["/p/config.json"]);
    expect(settleToken({ server_url: config.server_url }, "/p/config.json", keyring(false), () => expect.fail("nothing to write"))).toEqual({ config: { server_url: config.server_url }, storage: "none" });
  });
});

describe("the webview's permission asks (expected-asks.ts)", () => {
  it("allows one ask per ask the page told of, of its kind, until it expires; nothing untold", () => {
    let now = 1_000;
    const asks = createExpectedAsks(() => now, 10_000);
    expect(asks.take("microphone")).toBe(false);
    asks.expect("microphone");
    expect(asks.take("notifications")).toBe(false);
    expect(asks.take("microphone")).toBe(true);
    expect(asks.take("microphone")).toBe(false);
    asks.expect("microphone");
    asks.expect("microphone");
    expect([asks.take("microphone"), asks.take("microphone"), asks.take("microphone")]).toEqual([true, true, false]);
    asks.expect("notifications");
    now += 10_000;
    expect(asks.take("notifications")).toBe(false);
    asks.expect("notifications");
    now += 9_999;
    expect(asks.take("notifications")).toBe(true);
  });
});
