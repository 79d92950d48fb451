/**
 * App-supplied JSON Schema `pattern`s and `patternProperties` keys, run in linear time.
 *
 * The schema interpreter compiles each pattern with `new RegExp(pattern, "u")` and tests agent-supplied
 * text with it. A backtracking engine takes polynomial time on many ordinary patterns — `\s*$` searched
 * in a long run of spaces is quadratic, `a*a*a*b` cubic — so an agent could stall the Runtime with one
 * long argument. While the interpreter checks a value, `RegExp` is RE2 (`re2js`): one pass over the text
 * whatever the pattern. The interpreter is synchronous, so no other code runs while the stand-in is in
 * place; it is restored before `withLinearPatterns` returns or throws.
 *
 * RE2 runs ECMAScript syntax except lookaround and back-references; `linearPatternProblem` refuses those
 * at install, so a pattern that installs is one RE2 runs.
 */
import { RE2JS } from "re2js";

/** ECMAScript's `\s` (WhiteSpace and LineTerminator), which RE2's `\s` (ASCII only) is not, as the inside of an RE2 class. */
const JS_SPACE = "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
/** ECMAScript's `.` without the `s` flag: anything but a line terminator (RE2's excludes only `\n`). */
const JS_DOT = "[^\\n\\r\\x{2028}\\x{2029}]";

/** Every code point, as the inside of an RE2 class. */
const ANY = "\\x{0}-\\x{10FFFF}";

/** Thrown for what RE2 cannot run with ECMAScript's meaning. */
class NotLinear extends Error {}

/**
 * `pattern` (a valid Unicode `RegExp`) in RE2's syntax with ECMAScript's meaning: `re2js` translates the
 * syntax (`\u` escapes, named groups); then `\s`, `\S` and `.` get ECMAScript's sets, and a `[` inside a
 * class stays a character (RE2 would read `[[:alpha:]]` as a POSIX class). Back-references are refused
 * before translating (it would turn `\k<name>` into text), lookaround by RE2 itself.
 */
function toRe2(pattern: string): string {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const next = pattern[++i] ?? "";
      if (!inClass && (next === "k" || (next >= "1" && next <= "9"))) throw new NotLinear("a back-reference");
    } else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
  }
  const translated = RE2JS.translateRegExp(pattern);
  let out = "";
  for (let i = 0; i < translated.length; i++) {
    const c = translated[i]!;
    if (c === "\\") {
      const next = translated[++i] ?? "";
      out += next === "s" ? `[${JS_SPACE}]` : next === "S" ? `[^${JS_SPACE}]` : `\\${next}`;
    } else if (c === "[") {
      let body = "";
      for (i++; i < translated.length && translated[i] !== "]"; i++) {
        const d = translated[i]!;
        body += d === "\\" ? `\\${translated[++i] ?? ""}` : d;
      }
      out += re2Class(body);
    } else out += c === "." ? JS_DOT : c;
  }
  return out;
}

/** One ECMAScript class body (between `[` and `]`) as an RE2 class with the same meaning. */
function re2Class(body: string): string {
  if (body === "") return `[^${ANY}]`;
  if (body === "^" || body === "\\s\\S" || body === "\\S\\s") return `[${ANY}]`;
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\") {
      const next = body[++i] ?? "";
      if (next === "S") throw new NotLinear("\\S inside a character class");
      out += next === "s" ? JS_SPACE : `\\${next}`;
    } else out += c === "[" ? "\\[" : c;
  }
  return `[${out}]`;
}

/** Compiles a pattern of an app's schema for RE2; throws when RE2 cannot run it with ECMAScript's meaning. */
function compileLinear(pattern: string): RE2JS {
  return RE2JS.compile(toRe2(pattern));
}

/** Why RE2 cannot run `pattern` (already known to compile as a Unicode `RegExp`), or undefined when it can. */
export function linearPatternProblem(pattern: string): string | undefined {
  try {
    compileLinear(pattern);
    return undefined;
  } catch (error) {
    const what = error instanceof NotLinear ? error.message : "lookaround or syntax it does not know";
    return `uses what the Runtime's linear-time engine does not run (${what})`;
  }
}

/** The part of a `RegExp` the interpreter uses: `new RegExp(pattern, "u").test(text)`. */
interface PatternTest {
  test(text: string): boolean;
}

/** A cache of compiled patterns for one schema's validator: the interpreter compiles each pattern on every check. */
export type LinearPatternCache = Map<string, RE2JS>;

/** A schema's own patterns are few; past this, what is compiled is checked text (`format: "regex"`), not kept. */
const MAX_CACHED_PATTERNS = 256;

/**
 * Runs `check` (a synchronous call of the schema interpreter) with every `new RegExp` it makes run by RE2.
 * Patterns compile once per cache.
 */
export function withLinearPatterns<T>(cache: LinearPatternCache, check: () => T): T {
  const native = globalThis.RegExp;
  function LinearRegExp(pattern: string): PatternTest {
    let compiled = cache.get(pattern);
    if (compiled === undefined) {
      compiled = compileLinear(pattern);
      if (cache.size < MAX_CACHED_PATTERNS) cache.set(pattern, compiled);
    }
    const re = compiled;
    return { test: (text: string): boolean => re.test(String(text)) };
  }
  globalThis.RegExp = LinearRegExp as unknown as RegExpConstructor;
  try {
    return check();
  } finally {
    globalThis.RegExp = native;
  }
}
