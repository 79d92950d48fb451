/**
 * Builds the desktop host's GJS program: `src/main.ts` and what it imports (the web host's site, the
 * protocol's host channel) bundled into one ES module GJS runs, `dist/lineup-desktop.js`. The `gi://` and
 * GJS built-in modules stay imports.
 */
import { buildDesktop } from "../src/node/build.js";

const out = await buildDesktop();
console.log(`built ${out}`);
