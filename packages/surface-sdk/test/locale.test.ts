import { describe, expect, it } from "vitest";
import { isSimplifiedChinese } from "../src/index.js";

describe("isSimplifiedChinese", () => {
  it("is Chinese in simplified script, whatever the case or separator, and nothing else", () => {
    for (const locale of ["zh", "zh-CN", "zh-cn", "zh_CN", "zh-SG", "zh-Hans", "zh-Hans-CN", "zh-Hans-HK"]) expect(isSimplifiedChinese(locale), locale).toBe(true);
    for (const locale of ["en", "en-US", "zh-TW", "zh-HK", "zh-MO", "zh-Hant", "zh-Hant-CN", "ja", "", "C"]) expect(isSimplifiedChinese(locale), locale).toBe(false);
  });
});
