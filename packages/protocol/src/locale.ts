/**
 * Which language an app's own words should be in, from the locale LineUp tells it (`AppContext.locale`,
 * a BCP 47 tag). One rule for every app and the host: Chinese in simplified script.
 */

/** Whether `locale` asks for Chinese in simplified script: `zh`, `zh-CN`, `zh-SG`, `zh-Hans-…`; not `zh-TW`, `zh-HK`, `zh-MO` or `zh-Hant`. */
export function isSimplifiedChinese(locale: string): boolean {
  const [language, ...rest] = locale.toLowerCase().split(/[-_]/);
  if (language !== "zh") return false;
  if (rest.includes("hans")) return true;
  return !rest.some((subtag) => subtag === "hant" || subtag === "tw" || subtag === "hk" || subtag === "mo");
}
