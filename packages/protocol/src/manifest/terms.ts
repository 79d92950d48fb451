/**
 * Manifest terms a running host reads (patterns it matches itself, a default it shows), as plain values: the
 * schema modules that use them build TypeBox schemas when loaded, and a host page carries none of that.
 */

export const ENTRYPOINT_ID_PATTERN = "^[a-z][a-z0-9_-]*$";
/**
 * A language tag as a `localized` key, in its canonical case: language, optional script, optional region
 * (`zh-CN`, `zh-Hans`, `pt-BR`, `en`).
 */
export const MANIFEST_LOCALE_PATTERN = "^[a-z]{2,3}(?:-[A-Z][a-z]{3})?(?:-(?:[A-Z]{2}|[0-9]{3}))?$";
export const DEFAULT_APP_STORAGE_QUOTA_BYTES = 10 * 1024 * 1024;
