// The browser entry: the theme first (no flash of the wrong one), then the host.
import { render } from "preact";
import { Host } from "./bootstrap/Host.js";
import { mirrorTitle, nativeHost } from "./bootstrap/native-host.js";
import { applyTheme, loadTheme } from "./shell/theme.js";
import "./styles.css";

applyTheme(loadTheme());
const root = document.getElementById("app");
if (root !== null) render(<Host />, root);
// Inside the desktop host's window, its title follows the page's (nothing answers in a plain browser).
void nativeHost().then((host) => host !== undefined && mirrorTitle(host));
