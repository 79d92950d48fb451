/* global process */
// The journal's text importer: a stdio-jsonrpc back-end the host starts on the Node host (docs/manifest.md §8b).
// It reads dated paragraphs — a line `YYYY-MM-DD`, then the entry's lines, the first its title — and writes each
// into the journal's storage through the host (`host.storage.put`), the only way it can reach it.
import { createInterface } from "node:readline";

let nextId = 1;
const waiting = new Map();
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

function host(method, params) {
  const id = `h${nextId++}`;
  send({ jsonrpc: "2.0", id, method: `host.${method}`, params });
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}

const DAY = /^\s*(\d{4}-\d{2}-\d{2})\s*$/;

function parse(text) {
  const entries = [];
  let current;
  for (const line of String(text).split(/\r\n|\r|\n/)) {
    const day = DAY.exec(line);
    if (day !== null) {
      current = { day: day[1], lines: [] };
      entries.push(current);
    } else if (current !== undefined) current.lines.push(line);
  }
  return entries
    .map(({ day, lines }) => {
      const body = lines.join("\n").trim();
      const title = (body.split("\n")[0] ?? "").slice(0, 200);
      return { day, title: title === "" ? day : title, body: body === "" ? title : body.slice(0, 20000) };
    })
    .filter((e) => e.body !== "");
}

async function handle(message) {
  if (message.method === "import.text") {
    const entries = parse(message.params?.text ?? "");
    for (const e of entries) await host("storage.put", { collection: "entries", key: e.day, value: { title: e.title, body: e.body } });
    return { imported: entries.length, days: entries.map((e) => e.day) };
  }
  if (message.method === "$/ping") return {};
  throw Object.assign(new Error(`no method ${message.method}`), { rpc: -32601, code: "method_not_found" });
}

createInterface({ input: process.stdin }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.method === undefined && waiting.has(message.id)) {
    const { resolve, reject } = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error !== undefined) reject(Object.assign(new Error(message.error.message), { code: message.error.data?.code }));
    else resolve(message.result);
    return;
  }
  if (typeof message.method !== "string" || message.id === undefined) return;
  handle(message).then(
    (result) => send({ jsonrpc: "2.0", id: message.id, result }),
    (error) => send({ jsonrpc: "2.0", id: message.id, error: { code: error.rpc ?? -32000, message: String(error.message), data: { code: error.code ?? "handler_failed" } } }),
  );
});
