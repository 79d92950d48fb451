/**
 * `lineup new app NAME [--dir DIR]`: scaffolds an app that builds and passes its own test as it stands —
 * `lineup.app.base.json` (the manifest without its tools), `src/tools.ts` (one agent tool declared with
 * `defineAgentTools`: the build emits the manifest's `tools` from it), `src/main.ts` (the page, serving that
 * tool), `test/tools.test.ts` (the agent calls the tool through a real Runtime from the testkit) and a
 * package.json whose `build`, `test`, `pack` and `sign` scripts are the `lineup` commands docs/app-authors.md
 * walks through. Refuses a NAME that is not an app scope, and a directory that exists.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { isAppScope, RESERVED_APP_SCOPES, UsageError } from "@lineup/protocol";
import type { Command, LoadedCommand } from "../io.js";

export const NEW_USAGE = `usage: lineup new app NAME [--dir DIR]
  NAME   the app's scope: lowercase letters and digits in dash-separated words, 2–40 characters (e.g. hello-notes)
  --dir  where the app's directory NAME is made (default: the current directory)`;

/** The scaffold's files by path, for the app `name` whose tool is `<prefix>.greet`. */
export function scaffoldFiles(name: string): Map<string, string> {
  const prefix = name.replace(/-/g, "_");
  const title = name
    .split("-")
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join(" ");
  const manifest = {
    format: "lineup.app.v1",
    app_scope: name,
    version: "0.1.0",
    name: title,
    description: `${title}: a LineUp app with one agent tool.`,
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1"] },
    entrypoints: [{ id: "main", kind: "primary", default_eligible: true, display_modes: ["foreground"], path: "index.html", title }],
    agent_subscriptions: [{ type: "lineup.tool.invoke", scope: "conversation" }],
  };
  const pkg = {
    name,
    version: "0.1.0",
    private: true,
    type: "module",
    scripts: {
      build: "lineup build-app . --out dist",
      test: "vitest run",
      keygen: "lineup keygen keys",
      pack: `lineup build-app . --out dist && lineup pack dist ${name}.lineup`,
      sign: `lineup sign ${name}.lineup keys/publisher.key`,
    },
    devDependencies: { "@lineup/app-sdk": "^0.1.0", "@lineup/cli": "^0.1.0", "@lineup/surface-sdk": "^0.1.0", vitest: "^4.1.12" },
  };
  return new Map([
    ["lineup.app.base.json", `${JSON.stringify(manifest, null, 2)}\n`],
    ["package.json", `${JSON.stringify(pkg, null, 2)}\n`],
    [".gitignore", "node_modules/\ndist/\nkeys/\n*.lineup\n"],
    [
      "src/tools.ts",
      `/** The app's agent tools: the build writes their descriptors into the manifest; the page serves the handlers. */
import { defineAgentTools } from "@lineup/surface-sdk";

export const tools = defineAgentTools({
  "${prefix}.greet": {
    title: "Greet someone",
    description: "Answers with a greeting for the given name.",
    call_model: "query",
    activation_requirement: "activation_not_required",
    input_schema: {
      type: "object",
      additionalProperties: false,
      required: ["name"],
      properties: { name: { type: "string", minLength: 1, maxLength: 80, description: "Who to greet." } },
    },
    output_schema: {
      type: "object",
      additionalProperties: false,
      required: ["greeting"],
      properties: { greeting: { type: "string" } },
    },
    handler: (args: { name: string }) => ({ greeting: \`Hello, \${args.name}!\` }),
  },
});
`,
    ],
    [
      "src/main.ts",
      `/** The app's page: connects to LineUp over the Surface Bridge, serves the agent tools, shows a heading. */
import { connectSurface } from "@lineup/surface-sdk";
import { tools } from "./tools.js";

async function start(): Promise<void> {
  const root = document.getElementById("app");
  if (root === null) return;
  const heading = document.createElement("h1");
  const surface = await connectSurface({ tools }).catch(() => undefined);
  heading.textContent = surface === undefined ? "${title}: open me in LineUp" : "${title} is running";
  root.append(heading);
  await surface?.lifecycle.ready();
}

void start();
`,
    ],
    [
      "test/tools.test.ts",
      `/** The agent calls the app's tool through a real Runtime (the testkit) and gets its one result. */
import { readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { createTestRuntime, type TestRuntime } from "@lineup/app-sdk/testkit";
import { toolDescriptors } from "@lineup/surface-sdk";
import { tools } from "../src/tools.js";

const base = JSON.parse(readFileSync(new URL("../lineup.app.base.json", import.meta.url), "utf8"));
let kit: TestRuntime | undefined;
afterEach(() => kit?.stop());

it("greets through the agent's tool call", async () => {
  kit = await createTestRuntime({ apps: [{ manifest: { ...base, tools: toolDescriptors(tools) } }] });
  const sdk = kit.sdk(base.app_scope);
  for (const [method, tool] of tools.tools) sdk.tools.register(method, (args, ctx) => tool.handler(args, ctx) as never);
  const outcome = await kit.agent.call(base.app_scope, "${prefix}.greet", { name: "Ada" });
  expect(outcome.error).toBeUndefined();
  expect(outcome.result).toEqual({ greeting: "Hello, Ada!" });
});

it("refuses arguments its schema does not allow", async () => {
  kit = await createTestRuntime({ apps: [{ manifest: { ...base, tools: toolDescriptors(tools) } }] });
  const outcome = await kit.agent.call(base.app_scope, "${prefix}.greet", { name: "" });
  expect(outcome.error?.code).toBe("invalid_arguments");
});
`,
    ],
  ]);
}

export const newCommand: Command = async (argv, io) => {
  const { values, positionals } = parseArgs({ args: [...argv], options: { dir: { type: "string" } }, allowPositionals: true });
  const [what, name, ...extra] = positionals;
  if (what !== "app") throw new UsageError(what === undefined ? "name what to make: app" : `unknown kind ${JSON.stringify(what)}: only app`);
  if (name === undefined || extra.length > 0) throw new UsageError("expected one NAME");
  if (!isAppScope(name) || RESERVED_APP_SCOPES.has(name)) throw new UsageError(`${JSON.stringify(name)} is not an app scope an app may take (lowercase words joined by dashes, 2–40 characters)`);
  const appDir = join(resolve(values.dir ?? "."), name);
  if (existsSync(appDir)) throw new Error(`${appDir} exists already: choose another NAME or --dir`);
  for (const [path, text] of scaffoldFiles(name)) {
    const file = join(appDir, path);
    await mkdir(resolve(file, ".."), { recursive: true });
    await writeFile(file, text);
  }
  io.out(`made ${appDir}: npm install, then npm test, npm run build (docs/app-authors.md)`);
  return 0;
};

export const newAppCli: LoadedCommand = { run: newCommand, usage: NEW_USAGE };
