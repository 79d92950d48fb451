/**
 * Number, date, list and plural formatting in the UI language (`Intl.*`), handed to every catalogue
 * message that takes parameters so that a translation words counts and dates its own way.
 */

export interface Format {
  readonly locale: string;
  /** `forms` by the locale's plural category (`Intl.PluralRules`); `#` in the chosen form is `n`, formatted. */
  plural(n: number, forms: { readonly other: string } & Partial<Record<Intl.LDMLPluralRule, string>>): string;
  number(n: number, options?: Intl.NumberFormatOptions): string;
  date(at: Date | number, options?: Intl.DateTimeFormatOptions): string;
  /** `a, b and c` in the locale's words. */
  list(items: readonly string[]): string;
}

export function createFormat(locale: string): Format {
  const rules = new Intl.PluralRules(locale);
  const numbers = new Intl.NumberFormat(locale);
  const lists = new Intl.ListFormat(locale, { style: "long", type: "conjunction" });
  return {
    locale,
    plural(n, forms) {
      const form = forms[rules.select(n)] ?? forms.other;
      return form.replace(/#/g, numbers.format(n));
    },
    number: (n, options) => (options === undefined ? numbers : new Intl.NumberFormat(locale, options)).format(n),
    date: (at, options) => new Intl.DateTimeFormat(locale, options ?? { dateStyle: "medium", timeStyle: "short" }).format(at),
    list: (items) => lists.format(items),
  };
}
