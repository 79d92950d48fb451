/**
 * The person's UI language is a Runtime setting: committed and audited like the other settings, kept
 * across a restart, announced to Settings' subscribers, and refused when it is not a language tag.
 */
import { describe, expect, it } from "vitest";
import type { LineUpError } from "@lineup/protocol";
import { createMemoryStore, RUNTIME_COLLECTIONS, RUNTIME_SCHEMA } from "../src/index.js";
import { createMemoryStoreData, FakeAppServer, startDevice } from "./helpers/runtime-harness.js";

describe("the UI language setting", () => {
  it("follows the device until chosen, is kept across a restart, and can follow the device again", async () => {
    const server = new FakeAppServer();
    const data = createMemoryStoreData();
    const first = await startDevice(server, data);
    expect(first.runtime.settings.language()).toBeUndefined();
    let heard = 0;
    const off = first.runtime.settings.subscribe(() => heard++);
    await first.runtime.settings.setLanguage("zh-cn");
    expect(first.runtime.settings.language()).toBe("zh-CN");
    expect(heard).toBe(1);
    off();
    await expect(first.runtime.settings.setLanguage("not a tag")).rejects.toMatchObject({ code: "invalid_params" } satisfies Partial<LineUpError>);
    expect(first.runtime.settings.language()).toBe("zh-CN");
    expect(await first.runtime.verifyAudit()).toMatchObject({ ok: true });
    await first.stop();

    const second = await startDevice(server, data, { run: "r1" });
    expect(second.runtime.settings.language()).toBe("zh-CN");
    await second.runtime.settings.setLanguage(undefined);
    expect(second.runtime.settings.language()).toBeUndefined();
    await second.stop();

    const third = await startDevice(server, data, { run: "r2" });
    expect(third.runtime.settings.language()).toBeUndefined();
    await third.stop();
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    const audit = (await store.range(RUNTIME_COLLECTIONS.audit)).map((r) => (r.value as { type: string }).type);
    await store.close();
    expect(audit.filter((type) => type === "settings.language.changed")).toHaveLength(2);
  });
});
