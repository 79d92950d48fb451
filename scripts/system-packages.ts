/**
 * `npm test`'s first step (the `pretest` script): the Debian packages the tests drive — Chromium for the
 * browser tests, GJS with GTK 4 and WebKitGTK 6.0 under Xvfb (xauth, xdotool, xprop, a session bus) for the
 * desktop host's, Info-ZIP `unzip` for the bundle format — are installed when missing, the way
 * `playwright install --with-deps` does: with apt-get when running as root on Debian or Ubuntu,
 * otherwise one line naming the exact command, and exit 1. When everything is there it costs one
 * `dpkg-query` and says nothing.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Debian package names, in the order they are installed. */
export const SYSTEM_PACKAGES: readonly string[] = ["chromium", "gjs", "gir1.2-webkit-6.0", "gir1.2-gtk-4.0", "xvfb", "xauth", "xdotool", "x11-utils", "dbus", "gnome-keyring", "postgresql", "fonts-droid-fallback", "unzip"];

export interface Machine {
  /** /etc/os-release names Debian or Ubuntu (itself or in ID_LIKE). */
  readonly debianLike: boolean;
  readonly root: boolean;
  /** Packages dpkg reports installed; empty where there is no dpkg. */
  readonly installed: ReadonlySet<string>;
}

export type Decision =
  | { readonly kind: "ready" }
  /** Run these commands, in order, with DEBIAN_FRONTEND=noninteractive. */
  | { readonly kind: "install"; readonly missing: readonly string[]; readonly commands: readonly (readonly string[])[] }
  /** Print this one line and exit 1. */
  | { readonly kind: "instruct"; readonly missing: readonly string[]; readonly line: string };

/** What `npm test` does on this machine before any test runs. */
export function decide(required: readonly string[], machine: Machine): Decision {
  const missing = required.filter((name) => !machine.installed.has(name));
  if (missing.length === 0) return { kind: "ready" };
  const names = missing.join(" ");
  if (!machine.debianLike) {
    return { kind: "instruct", missing, line: `npm test: the tests need these Debian/Ubuntu packages, or their equivalents on this system: ${names}` };
  }
  if (!machine.root) return { kind: "instruct", missing, line: `npm test: missing system packages; install them with: sudo apt-get install -y ${names}` };
  return { kind: "install", missing, commands: [["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", ...missing]] };
}

/** Debian or Ubuntu, from the text of /etc/os-release. */
export function isDebianLike(osRelease: string): boolean {
  const field = (key: string): string[] => {
    const line = osRelease.split("\n").find((l) => l.startsWith(`${key}=`));
    return line === undefined ? [] : line.slice(key.length + 1).replace(/^["']|["']$/g, "").split(/\s+/);
  };
  return [...field("ID"), ...field("ID_LIKE")].some((id) => id === "debian" || id === "ubuntu");
}

/** The installed packages in `dpkg-query -W -f='${Package}\t${db:Status-Abbrev}\n'` output ("ii" = installed). */
export function parseDpkgQuery(output: string): Set<string> {
  const installed = new Set<string>();
  for (const line of output.split("\n")) {
    const [name, status] = line.split("\t");
    if (name !== undefined && name !== "" && status?.startsWith("ii") === true) installed.add(name.split(":")[0]!);
  }
  return installed;
}

function probe(required: readonly string[]): Machine {
  let osRelease = "";
  try {
    osRelease = readFileSync("/etc/os-release", "utf8");
  } catch {
    // Not Linux, or no os-release: not Debian-like.
  }
  // dpkg-query exits 1 when some package is unknown, still listing the others on stdout.
  const query = spawnSync("dpkg-query", ["-W", "-f=${Package}\\t${db:Status-Abbrev}\\n", ...required], { encoding: "utf8" });
  return { debianLike: isDebianLike(osRelease), root: process.getuid?.() === 0, installed: parseDpkgQuery(query.stdout ?? "") };
}

function main(): void {
  const decision = decide(SYSTEM_PACKAGES, probe(SYSTEM_PACKAGES));
  if (decision.kind === "ready") return;
  if (decision.kind === "instruct") {
    console.error(decision.line);
    process.exit(1);
  }
  console.error(`npm test: installing missing system packages: ${decision.missing.join(" ")}`);
  try {
    for (const [command, ...args] of decision.commands) execFileSync(command!, args, { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  } catch {
    console.error(`npm test: apt-get failed; install them with: apt-get install -y ${decision.missing.join(" ")}`);
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
