/**
 * `npm test`'s provisioning decision (scripts/system-packages.ts): which Debian packages are missing →
 * nothing, apt-get, or one line naming the command. The decision is tested as a function; apt-get is
 * never run here.
 */
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { decide, isDebianLike, parseDpkgQuery, SYSTEM_PACKAGES, type Machine } from "../scripts/system-packages.js";

const all = new Set(SYSTEM_PACKAGES);
const without = (...names: string[]) => new Set(SYSTEM_PACKAGES.filter((n) => !names.includes(n)));
const machine = (over: Partial<Machine>): Machine => ({ debianLike: true, root: true, installed: all, ...over });

describe("decide", () => {
  it("does nothing when every package is installed, as root or not, Debian or not", () => {
    for (const root of [true, false]) for (const debianLike of [true, false]) expect(decide(SYSTEM_PACKAGES, machine({ root, debianLike }))).toEqual({ kind: "ready" });
  });

  it("installs exactly the missing packages with apt-get as root on Debian or Ubuntu", () => {
    expect(decide(SYSTEM_PACKAGES, machine({ installed: without("chromium", "xdotool") }))).toEqual({
      kind: "install",
      missing: ["chromium", "xdotool"],
      commands: [
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "chromium", "xdotool"],
      ],
    });
  });

  it("names the exact command, and installs nothing, when not root", () => {
    const decision = decide(SYSTEM_PACKAGES, machine({ root: false, installed: without("gjs") }));
    expect(decision).toEqual({ kind: "instruct", missing: ["gjs"], line: "npm test: missing system packages; install them with: sudo apt-get install -y gjs" });
  });

  it("names the packages, and installs nothing, on a system that is not Debian or Ubuntu", () => {
    const decision = decide(["chromium", "unzip"], machine({ debianLike: false, installed: new Set() }));
    expect(decision.kind).toBe("instruct");
    if (decision.kind === "instruct") {
      expect(decision.line).not.toContain("\n");
      expect(decision.line).toContain("chromium unzip");
    }
  });

  it("names the same packages as .ci/run installs", () => {
    const line = readFileSync(new URL("../.ci/run", import.meta.url), "utf8").match(/^PACKAGES="([^"]*)"$/m);
    expect(line?.[1]?.split(" ")).toEqual([...SYSTEM_PACKAGES]);
  });

  it("covers every package the tests use, in the order CI installed them", () => {
    expect(SYSTEM_PACKAGES).toEqual(["chromium", "gjs", "gir1.2-webkit-6.0", "gir1.2-gtk-4.0", "xvfb", "xauth", "xdotool", "x11-utils", "dbus", "gnome-keyring", "postgresql", "fonts-droid-fallback", "unzip"]);
  });
});

describe("reading the machine", () => {
  it("recognises Debian and Ubuntu and their derivatives by ID or ID_LIKE, and nothing else", () => {
    expect(isDebianLike('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n')).toBe(true);
    expect(isDebianLike("ID=ubuntu\nID_LIKE=debian\n")).toBe(true);
    expect(isDebianLike('ID=linuxmint\nID_LIKE="ubuntu debian"\n')).toBe(true);
    expect(isDebianLike("ID=fedora\n")).toBe(false);
    expect(isDebianLike('ID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"\n')).toBe(false);
    expect(isDebianLike("")).toBe(false);
  });

  it("counts only packages dpkg marks installed (ii), not removed ones with config left (rc)", () => {
    expect(parseDpkgQuery("chromium\tii \nxvfb\trc \nunzip\tii \nlibfoo:amd64\tii \n")).toEqual(new Set(["chromium", "unzip", "libfoo"]));
  });

  it("parses what this machine's dpkg-query really prints, unknown packages included", () => {
    const query = spawnSync("dpkg-query", ["-W", "-f=${Package}\\t${db:Status-Abbrev}\\n", "dpkg", "lineup-no-such-package"], { encoding: "utf8" });
    expect(query.status).toBe(1);
    expect(parseDpkgQuery(query.stdout)).toEqual(new Set(["dpkg"]));
  });
});
