/**
 * The host UI's catalogue: every message in both languages, the same parameters read in each, Chinese
 * that is Chinese, plurals and numbers through `Intl`, the Chinese catalogue used only once it has been
 * fetched, and the language picked from the browser's list.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { loadUiLanguage, setUiLanguage, t, tIn, uiLanguageOf, type MessageKey } from "../src/i18n/index.js";
import { MESSAGES } from "../src/i18n/messages.js";
import { ZH_CN } from "../src/i18n/messages.zh-CN.js";
import { createFormat } from "../src/i18n/format.js";
import { CAPABILITIES, ERROR_CODES, LineUpError, type CapabilityName, type ErrorCode } from "@lineup/protocol";
import { cannotOpenText, reasonText } from "../src/i18n/reasons.js";

/** Entries that are the same in both languages on purpose (a proper name). */
const SAME_IN_BOTH = new Set<string>([]);

/** Calls a message with parameters that record which names it reads; each reads as the number 7 or the text "7". */
function paramsRead(message: (params: unknown, format: ReturnType<typeof createFormat>) => string, language: string): { text: string; read: string[] } {
  const read = new Set<string>();
  const params = new Proxy({}, { get: (_target, name) => (typeof name === "string" ? (read.add(name), 7) : undefined) });
  return { text: message(params, createFormat(language)), read: [...read].sort() };
}

describe("the Chinese catalogue, a chunk of its own", () => {
  it("is refused until it has been fetched, and spoken after", async () => {
    // A copy of its own: another file in this process may have fetched it (vitest.config.ts).
    vi.resetModules();
    const { hasUiLanguage, loadUiLanguage, setUiLanguage, tIn, uiLanguage } = await import("../src/i18n/index.js");
    expect(hasUiLanguage("en")).toBe(true);
    expect(hasUiLanguage("zh-CN")).toBe(false);
    expect(() => setUiLanguage("zh-CN")).toThrow(/not loaded/);
    expect(uiLanguage()).toBe("en");
    expect(() => tIn("zh-CN", "core.settings")).toThrow(/not loaded/);
    await loadUiLanguage("zh-CN");
    expect(hasUiLanguage("zh-CN")).toBe(true);
    expect(tIn("zh-CN", "core.settings")).toBe("设置");
  });
});

describe("the host UI's catalogue", () => {
  const keys = Object.keys(MESSAGES) as MessageKey[];
  beforeAll(() => loadUiLanguage("zh-CN"));

  it("has every message in English and Chinese, each reading the same parameters", () => {
    expect(keys.length).toBeGreaterThan(200);
    expect(Object.keys(ZH_CN).sort()).toEqual([...keys].sort());
    for (const key of keys) {
      const en: unknown = MESSAGES[key].en;
      const zh: unknown = ZH_CN[key];
      expect(typeof zh, key).toBe(typeof en);
      if (typeof en === "string") {
        expect(en.trim(), key).not.toBe("");
        expect((zh as string).trim(), key).not.toBe("");
        if (!SAME_IN_BOTH.has(key)) expect(zh, `${key} is not translated`).not.toBe(en);
        continue;
      }
      const english = paramsRead(en as never, "en");
      const chinese = paramsRead(zh as never, "zh-CN");
      expect(chinese.read, `${key} reads other parameters in zh-CN`).toEqual(english.read);
      expect(english.read.length, `${key} takes parameters it never reads`).toBeGreaterThan(0);
    }
  });

  it("has Chinese words in every Chinese message", () => {
    for (const key of keys) {
      const zh: unknown = ZH_CN[key];
      const text = typeof zh === "string" ? zh : paramsRead(zh as never, "zh-CN").text;
      if (SAME_IN_BOTH.has(key)) continue;
      // Chinese words, or at least Chinese punctuation for a message that only puts parts together.
      expect(/[\p{Script=Han}\u3000-\u303f\uff00-\uffef]/u.test(text), `${key}: ${text}`).toBe(true);
    }
  });

  it("says in English what each capability does as the protocol's registry does, and has every capability in Chinese", () => {
    for (const name of Object.keys(CAPABILITIES) as CapabilityName[]) {
      expect(tIn("en", `capability.${name}`), name).toBe(CAPABILITIES[name].description);
      expect(tIn("zh-CN", `capability.${name}`), name).toMatch(/\p{Script=Han}/u);
    }
  });

  it("words counts and numbers by the language's rules", () => {
    expect(tIn("en", "bytes.byte", { n: 1 })).toBe("1 byte");
    expect(tIn("en", "bytes.byte", { n: 1234 })).toBe("1,234 bytes");
    expect(tIn("zh-CN", "bytes.byte", { n: 1234 })).toBe("1,234 字节");
    expect(tIn("en", "app.installedRunning", { count: 2 })).toBe("Installed · 2 running");
    expect(tIn("zh-CN", "app.installedRunning", { count: 0 })).toBe("已安装 · 未运行");
  });

  it("speaks the language set, and says it on the page", () => {
    setUiLanguage("zh-CN");
    expect(t("core.settings")).toBe("设置");
    expect(t("launcher.noMatch", { query: "x" })).toBe("没有与“x”匹配的应用。");
    setUiLanguage("en");
    expect(t("core.settings")).toBe("Settings");
  });
  afterEach(() => setUiLanguage("en"));
});

describe("the UI language", () => {
  it("is the first of the browser's languages the catalogue has, else English", () => {
    expect(uiLanguageOf(["zh-CN", "en"])).toBe("zh-CN");
    expect(uiLanguageOf(["zh"])).toBe("zh-CN");
    expect(uiLanguageOf(["zh-Hans-CN"])).toBe("zh-CN");
    expect(uiLanguageOf(["zh-SG"])).toBe("zh-CN");
    expect(uiLanguageOf(["en-GB", "zh-CN"])).toBe("en");
    expect(uiLanguageOf(["de", "zh-CN"])).toBe("zh-CN");
    expect(uiLanguageOf(["zh-TW", "fr"])).toBe("en");
    expect(uiLanguageOf(["C", "zh-CN"])).toBe("zh-CN");
    expect(uiLanguageOf([])).toBe("en");
    expect(uiLanguageOf([undefined])).toBe("en");
  });
});

describe("reasons in notices", () => {
  afterEach(() => setUiLanguage("en"));

  it("English shows the Runtime's sentence; Chinese words the typed cause from the catalogue, never the English", () => {
    const refusal = new LineUpError("app_disabled", "whiteboard is disabled (enable it in Apps)");
    expect(reasonText(refusal)).toBe("whiteboard is disabled (enable it in Apps)");
    expect(cannotOpenText({ kind: "no_such_page", entrypoint: "lobby", message: "it has no page “lobby” to open" })).toBe("it has no page “lobby” to open");
    setUiLanguage("zh-CN");
    expect(reasonText(refusal)).toBe("此应用已停用");
    // A code the catalogue does not word, and an error with no code, read as a refusal in Chinese.
    expect(reasonText(new LineUpError("inbox_full", "the inbox of notes is full"))).toBe("请求被拒绝了");
    expect(reasonText(new Error("socket hang up"))).toBe("请求被拒绝了");
    expect(cannotOpenText({ kind: "no_such_page", entrypoint: "lobby", message: "it has no page “lobby” to open" })).toBe("它没有这个可打开的页面");
    expect(cannotOpenText({ kind: "host_incompatible", message: "this host does not offer app.tools.v1" })).toBe("此主机不提供它需要的功能");
  });
});

describe("a refused bundle, in words", () => {
  afterEach(() => setUiLanguage("en"));
  const bundleCodes = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => code.startsWith("bundle_"));

  it("every bundle_* code of the protocol's table reads as its own sentence in each language, never the generic refusal", () => {
    expect(bundleCodes).toContain("bundle_not_archive");
    for (const language of ["en", "zh-CN"] as const) {
      setUiLanguage(language);
      const generic = t("reason.other");
      const sentences = bundleCodes.map((code) => {
        expect(Object.hasOwn(MESSAGES, `reason.${code}`), `reason.${code}`).toBe(true);
        return t(`reason.${code}` as MessageKey);
      });
      for (const [i, sentence] of sentences.entries()) expect(sentence, `${language} ${bundleCodes[i]}`).not.toBe(generic);
      // Each says what is wrong with this bundle, not what another code says.
      expect(new Set(sentences).size).toBe(bundleCodes.length);
    }
    setUiLanguage("zh-CN");
    expect(reasonText(new LineUpError("bundle_not_archive", "no end of central directory record"))).toBe("这个文件不是应用包（LineUp 应用的压缩包）");
    expect(reasonText(new LineUpError("bundle_hash_mismatch", "\"index.html\" has SHA-256 00; the list says 11"))).toBe("应用包中的一个文件在签名后被改动过");
  });
});
