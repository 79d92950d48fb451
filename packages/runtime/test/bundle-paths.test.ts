/** The bundle path grammar (docs/bundle.md §1): what is a safe, portable entry path. */
import { describe, expect, it } from "vitest";
import { unsafePathReason } from "../src/index.js";

const SAFE = ["index.html", "app.js", "assets/icon.png", "_app/immutable/chunks/index-Dk2_3x.js", "fonts/Inter~latin@2x+v=3,b.woff2", "a/b/c/d.txt", "lineup.app.json", "README"];

const UNSAFE: Array<[string, RegExp]> = [
  ["", /empty/],
  ["../evil.js", /`\.\.`/],
  ["assets/../../evil.js", /`\.\.`/],
  ["./index.html", /`\.`/],
  ["/etc/passwd", /absolute/],
  ["..\\evil.js", /backslash/],
  ["assets\\icon.png", /backslash/],
  ["C:/Windows/evil.js", /drive letter/],
  ["c:evil.js", /drive letter/],
  ["index.html\0.js", /NUL/],
  ["assets/", /directory/],
  ["assets//icon.png", /empty segment/],
  [".htaccess", /hidden/],
  ["assets/.env", /hidden/],
  ["space name.js", /character/],
  ["naïve.js", /character/],
  ['quote".js', /character/],
  ["colon:name.js", /character/],
  ["trailing.", /ends with a dot/],
  ["CON", /device/],
  ["assets/nul.txt", /device/],
  ["Lpt1.js", /device/],
  ["a".repeat(256), /segment is longer/],
  [Array.from({ length: 33 }, () => "d").join("/"), /segments/],
  ["x/".repeat(300) + "x", /longer than 512/],
];

describe("bundle path grammar", () => {
  it.each(SAFE)("accepts %j", (path) => {
    expect(unsafePathReason(path)).toBeUndefined();
  });
  it.each(UNSAFE)("refuses %j", (path, reason) => {
    expect(unsafePathReason(path)).toMatch(reason);
  });
});
