// Node side of the desktop host: building its GJS program, and its desktop entry. Never part of the program.
export { buildDesktop, DESKTOP_PROGRAM, PACKAGE_DIR } from "./build.js";
export { desktopEntry, launcherScript, type DesktopEntryOptions } from "./desktop-entry.js";
export { startDesktopBackends } from "./backends.js";
