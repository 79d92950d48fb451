import { describe, expect, it } from "vitest";
import { appLocale, hostLocale } from "../src/apps-host/locale.js";
import { loadUiLanguage, setUiLanguage } from "../src/i18n/index.js";

describe("the locale the host hands apps", () => {
  it("is the browser's language when it is a language tag, else English", () => {
    expect(hostLocale("zh-CN")).toBe("zh-CN");
    expect(hostLocale("en-us")).toBe("en-US");
    expect(hostLocale("de")).toBe("de");
    // WebKitGTK under the C locale reports "C"; the snapshot's schema refuses it and no app could start.
    for (const language of ["c", "C", "", "en_US.UTF-8", "x", "*", undefined]) expect(hostLocale(language), String(language)).toBe("en");
  });
});

describe("the locale apps are told", () => {
  it("is the language chosen in Settings, else the browser's", async () => {
    await loadUiLanguage("zh-CN");
    setUiLanguage("zh-CN", "zh-CN");
    expect(appLocale()).toBe("zh-CN");
    setUiLanguage("en");
    expect(appLocale()).toBe(hostLocale());
  });
});
