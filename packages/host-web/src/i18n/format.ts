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

/**
 * The formatters are made on first use: the first `Intl` object of a process loads the locale's data, tens
 * of milliseconds on a fresh start, and most screens the page shows first format no number or date.
 */
export function createFormat(locale: string): Format {
  let rules: Intl.PluralRules | undefined;
  let numbers: Intl.NumberFormat | undefined;
  let lists: Intl.ListFormat | undefined;
  const number = (n: number): string => (numbers ??= new Intl.NumberFormat(locale)).format(n);
  return {
    locale,
    plural(n, forms) {
      const form = forms[(rules ??= new Intl.PluralRules(locale)).select(n)] ?? forms.other;
      return form.replace(/#/g, number(n));
    },
    number: (n, options) => (options === undefined ? number(n) : new Intl.NumberFormat(locale, options).format(n)),
    date: (at, options) => new Intl.DateTimeFormat(locale, options ?? { dateStyle: "medium", timeStyle: "short" }).format(at),
    list: (items) => (lists ??= new Intl.ListFormat(locale, { style: "long", type: "conjunction" })).format(items),
  };
}
