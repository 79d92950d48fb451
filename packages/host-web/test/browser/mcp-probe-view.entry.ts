// An MCP Apps view written with ext-apps' own `App`, for the host's side of the protocol: it lists what the host tells
// it (tool input, partial input, result, cancel, display mode), asks for picture-in-picture from its button, and counts
// its openings in `localStorage`, fetches the address its page names (if any), and sends as many `ui/message`s at once
// as its page names (if any), listing each answer. The test bundles it into one inline page, as an MCP server would serve it.
import { App, PostMessageTransport } from "@modelcontextprotocol/ext-apps";

const list = document.getElementById("log")!;
const log = (line: string): void => {
  const item = document.createElement("li");
  item.textContent = line;
  list.append(item);
};
try {
  const count = Number(localStorage.getItem("count") ?? "0") + 1;
  localStorage.setItem("count", String(count));
  log(`count ${count}`);
} catch (error) {
  log(`storage ${(error as Error).name}`);
}
const target = document.querySelector('meta[name="probe-fetch"]')?.getAttribute("content");
if (target !== null && target !== undefined) {
  fetch(target).then(
    (response) => response.text().then((text) => log(`fetch ${text}`)),
    () => log("fetch refused"),
  );
}
const app = new App({ name: "probe", version: "1.0.0" }, {});
app.ontoolinput = (params) => log(`input ${JSON.stringify(params.arguments)}`);
app.ontoolinputpartial = (params) => log(`partial ${JSON.stringify(params.arguments)}`);
app.ontoolresult = (params) => log(`result ${JSON.stringify(params.structuredContent)}`);
app.ontoolcancelled = (params) => log(`cancelled ${params.reason ?? ""}`);
app.onhostcontextchanged = (context) => {
  if (context.displayMode !== undefined) log(`mode ${context.displayMode}`);
};
document.getElementById("pip")!.addEventListener("click", () => {
  void app.requestDisplayMode({ mode: "pip" }).then((answer) => log(`granted ${answer.mode}`));
});
// Its "Open link" asks the host to open the address its page names, and lists the answer.
document.getElementById("link")?.addEventListener("click", () => {
  const url = document.querySelector('meta[name="probe-link"]')?.getAttribute("content") ?? "https://example.com/";
  app.openLink({ url }).then(
    (answer) => log(`link ${answer.isError === true ? "refused" : "opened"}`),
    (error: { data?: { code?: string } }) => log(`link ${error.data?.code ?? "failed"}`),
  );
});
const burst = Number(document.querySelector('meta[name="probe-messages"]')?.getAttribute("content") ?? "0");
void app.connect(new PostMessageTransport(window.parent, window.parent)).then(() => {
  log(`started ${app.getHostContext()?.displayMode ?? ""}`);
  for (let i = 1; i <= burst; i++) {
    app.sendMessage({ role: "user", content: [{ type: "text", text: `message ${i}` }] }).then(
      (answer) => log(`message ${i} ${answer.isError === true ? "isError" : "sent"}`),
      (error: { data?: { code?: string } }) => log(`message ${i} ${error.data?.code ?? "failed"}`),
    );
  }
});
