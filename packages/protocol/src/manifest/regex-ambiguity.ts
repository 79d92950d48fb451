/**
 * Does a pattern hold an alternation that can backtrack exponentially under a repetition?
 *
 * `(a|a)*`, `(a|ab)*` or `(\w|\d)+` have star height 1, so the star-height check passes them, yet a
 * backtracking engine tries every way of splitting a failing input among the alternatives: 2^n ways for
 * n characters (`(a|a)*$` against 27 characters ran for about a minute here). Two alternatives can share
 * a split only if they can begin with the same character, so a repeated body whose alternations all have
 * pairwise disjoint first characters cannot be split two ways. This check refuses a repetition (more
 * than once) over a body holding an alternation whose alternatives may begin alike. It is conservative:
 * `(ab|ac)*` is refused though it is linear; written `a(b|c)` or `(a[bc])*`, it passes.
 *
 * Patterns are read with `ret` (the parser the star-height check uses). It reads `\p{…}` and `\P{…}` as
 * literal text, so those escapes are first replaced by "any character", a superset that can only make
 * the check stricter. Unreadable syntax is not this check's to report: it answers false, and the caller's
 * other checks refuse what they cannot read.
 */
import retModule, { types, type Root, type SetTokens, type Token } from "ret";

/** `ret` is CommonJS whose `module.exports` is the tokenizer itself (its typings describe an ES default). */
const tokenize = retModule as unknown as (pattern: string) => Root;

/** A set of code points as sorted, disjoint, inclusive ranges. */
type Ranges = ReadonlyArray<readonly [number, number]>;

const MAX_CODE_POINT = 0x10ffff;
const ANY: Ranges = [[0, MAX_CODE_POINT]];
const NONE: Ranges = [];

function normalise(ranges: Array<readonly [number, number]>): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [from, to] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

const union = (a: Ranges, b: Ranges): Ranges => normalise([...a, ...b]);

function complement(ranges: Ranges): Ranges {
  const out: Array<readonly [number, number]> = [];
  let next = 0;
  for (const [from, to] of ranges) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

function intersects(a: Ranges, b: Ranges): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [af, at] = a[i]!;
    const [bf, bt] = b[j]!;
    if (af <= bt && bf <= at) return true;
    if (at < bt) i++;
    else j++;
  }
  return false;
}

function setRanges(set: SetTokens, not: boolean): Ranges {
  const parts: Array<readonly [number, number]> = [];
  for (const item of set) {
    if (item.type === types.CHAR) parts.push([item.value, item.value]);
    else if (item.type === types.RANGE) parts.push([item.from, item.to]);
    else parts.push(...setRanges(item.set, item.not));
  }
  const ranges = normalise(parts);
  return not ? complement(ranges) : ranges;
}

/** The characters a token sequence may begin with, and whether it may match the empty string. */
interface First {
  readonly chars: Ranges;
  readonly nullable: boolean;
}

function firstOfSequence(tokens: readonly Token[]): First {
  let chars = NONE;
  for (const token of tokens) {
    const first = firstOf(token);
    chars = union(chars, first.chars);
    if (!first.nullable) return { chars, nullable: false };
  }
  return { chars, nullable: true };
}

function firstOfAlternatives(options: readonly (readonly Token[])[]): First {
  let chars = NONE;
  let nullable = false;
  for (const option of options) {
    const first = firstOfSequence(option);
    chars = union(chars, first.chars);
    nullable ||= first.nullable;
  }
  return { chars, nullable };
}

function firstOf(token: Token): First {
  switch (token.type) {
    case types.CHAR:
      return { chars: [[token.value, token.value]], nullable: false };
    case types.SET:
      return { chars: setRanges(token.set, token.not), nullable: false };
    case types.POSITION:
      return { chars: NONE, nullable: true };
    case types.REFERENCE:
      return { chars: ANY, nullable: true };
    case types.REPETITION: {
      const first = firstOf(token.value);
      return { chars: first.chars, nullable: first.nullable || token.min === 0 };
    }
    case types.GROUP: {
      // A lookaround matches no character.
      if (token.followedBy === true || token.notFollowedBy === true || token.lookBehind === true) return { chars: NONE, nullable: true };
      return token.options !== undefined ? firstOfAlternatives(token.options) : firstOfSequence(token.stack ?? []);
    }
  }
}

/** Whether some alternation in `token` (at any depth) has two alternatives that may begin with the same character. */
function holdsOverlappingAlternation(token: Token | Root): boolean {
  const options = "options" in token ? token.options : undefined;
  if (options !== undefined) {
    const firsts = options.map((option) => firstOfSequence(option).chars);
    for (let i = 0; i < firsts.length; i++) for (let j = i + 1; j < firsts.length; j++) if (intersects(firsts[i]!, firsts[j]!)) return true;
    if (options.some((option) => option.some(holdsOverlappingAlternation))) return true;
  }
  if ("stack" in token && token.stack !== undefined && token.stack.some(holdsOverlappingAlternation)) return true;
  if (token.type === types.REPETITION) return holdsOverlappingAlternation(token.value);
  return false;
}

function repeatsAmbiguously(token: Token | Root): boolean {
  if (token.type === types.REPETITION) {
    if (token.max > 1 && holdsOverlappingAlternation(token.value)) return true;
    return repeatsAmbiguously(token.value);
  }
  const options = "options" in token ? token.options : undefined;
  if (options?.some((option) => option.some(repeatsAmbiguously)) === true) return true;
  return "stack" in token && token.stack !== undefined && token.stack.some(repeatsAmbiguously);
}

/** `\p{…}` and `\P{…}` become "any character" (`[\s\S]`, or `\s\S` inside a class), which `ret` can read. */
function withoutPropertyEscapes(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      const next = pattern[i + 1];
      if ((next === "p" || next === "P") && pattern[i + 2] === "{") {
        const end = pattern.indexOf("}", i + 3);
        if (end !== -1) {
          out += inClass ? "\\s\\S" : "[\\s\\S]";
          i = end;
          continue;
        }
      }
      out += c + (next ?? "");
      i++;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    out += c;
  }
  return out;
}

/** True when a repetition of more than one round holds an alternation whose alternatives may begin alike. */
export function hasAmbiguousRepetition(pattern: string): boolean {
  let root: Root;
  try {
    root = tokenize(withoutPropertyEscapes(pattern));
  } catch {
    return false;
  }
  return repeatsAmbiguously(root);
}
