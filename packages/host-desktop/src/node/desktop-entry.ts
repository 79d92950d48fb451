/**
 * Installing the desktop host on a Linux desktop: a launcher script and a freedesktop `.desktop` entry that
 * runs it, so LineUp appears among the person's applications. Pure text; `scripts/desktop.ts --install`
 * writes the files.
 */
export interface DesktopEntryOptions {
  /** The launcher the entry runs (absolute path). */
  readonly launcher: string;
  /** An icon file (absolute path), if there is one. */
  readonly icon?: string;
}

/** Quotes a path for a `.desktop` Exec key (the specification's reserved characters escaped, inside double quotes). */
function execQuote(path: string): string {
  return `"${path.replace(/[\\"`$]/g, (c) => `\\\\${c}`)}"`;
}

export function desktopEntry(options: DesktopEntryOptions): string {
  return [
    "[Desktop Entry]",
    "Type=Application",
    "Version=1.5",
    "Name=LineUp",
    "Name[zh_CN]=LineUp",
    "GenericName=Apps and agents, together",
    "Comment=Work with AI agents through apps, on this device",
    `Exec=${execQuote(options.launcher)}`,
    ...(options.icon === undefined ? [] : [`Icon=${options.icon}`]),
    "Terminal=false",
    "Categories=Office;Utility;",
    "StartupNotify=true",
    "StartupWMClass=gjs",
    "",
  ].join("\n");
}

/** The launcher: runs `npm run desktop` in the repository the entry was installed from. */
export function launcherScript(repository: string): string {
  const quoted = `'${repository.replace(/'/g, `'\\''`)}'`;
  return ["#!/bin/sh", "# LineUp desktop host launcher, written by npm run desktop -- --install.", `cd ${quoted} || exit 1`, 'exec npm run --silent desktop -- "$@"', ""].join("\n");
}
