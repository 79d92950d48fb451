/**
 * The native host channel v1: the one message channel between the host page (the web host's bootstrap,
 * running inside a native webview) and the native program around it — the desktop host's GJS process.
 * Only the host page's own code can reach it (the desktop host exposes it to the top frame's isolated
 * world alone; installed apps' frames never see it), and only the Runtime's gateway and the bootstrap use
 * it: it is the seam a native `HostProvider` plugs into.
 *
 * A request is `{ channel: "lineup.host", v: 1, id, method, params }`, carried as JSON text; the answer is
 * `{ channel, v, id, result }` or `{ channel, v, id, error: { code, message } }` with a code from the
 * protocol's error table. Both sides check every message against these schemas: the native side decodes
 * requests (`decodeHostChannelRequest`), the page decodes answers (`decodeHostChannelResponse`).
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { fail, isErrorCode, ok, type ErrorCode, type Result } from "./errors.js";
import { decodeJson } from "./json.js";
import { validators } from "./generated/host-channel.js";
import { Closed, StringEnum, declared } from "./schema-kit.js";
import { schemaId } from "./schema-id.js";
import { describeSchemaError, type CompiledValidator } from "./validation.js";

export const HOST_CHANNEL = "lineup.host";
export const HOST_CHANNEL_VERSION = 1;
/** How long the native side holds a `permission.expect` for the webview's ask that follows it. */
export const HOST_CHANNEL_EXPECTED_ASK_MS = 10_000;
/** The largest file `file.save` carries: the web host's bound on one capability's artifacts (16 MiB). */
export const HOST_CHANNEL_MAX_FILE_BYTES = 16 * 1_048_576;
/**
 * The largest message either side accepts, in UTF-8 bytes: room for the largest file `file.save` carries, in
 * base64 (4 characters for 3 bytes), and its envelope — more than the clipboard's largest text (1 Mi characters, escaped).
 */
export const HOST_CHANNEL_MAX_BYTES = /* @__PURE__ */ declared(() => Math.ceil(HOST_CHANNEL_MAX_FILE_BYTES / 3) * 4 + 64 * 1024);

const Empty = () => Closed({});
/** The native window as a person sees it: shown, hidden (unmapped, or hidden by the program), or minimized. */
const WindowShown = (options: { description?: string } = {}) => StringEnum(["shown", "hidden", "minimized"] as const, options);

/** Every method the native side answers, with its params and result. */
/** The method names, as plain values: what run-time checks read (`METHODS` holds their schemas, for the generator and types). */
export const HOST_CHANNEL_METHODS = ["host.info", "window.set_title", "window.present", "window.minimize", "clipboard.write_text", "file.pick", "file.save", "permission.expect"] as const;
export type HostChannelMethod = (typeof HOST_CHANNEL_METHODS)[number];

const METHODS = /* @__PURE__ */ declared(() => ({
  /** What this host is: the page reads it to know what the desktop offers (notifications, where the token rests) and sends it nowhere else. */
  "host.info": {
    params: Empty(),
    result: Closed({
      host: StringEnum(["desktop"] as const),
      platform: Type.String({ maxLength: 64 }),
      toolkit: Type.String({ maxLength: 128, description: "The GUI toolkit and webview, with versions." }),
      data_dir: Type.String({ maxLength: 4096 }),
      notifications: Type.Boolean({ description: "Whether the desktop has a notification service: without one, notification.show is unsupported here." }),
      token_storage: StringEnum(["keyring", "file", "none"] as const, { description: "Where the device token rests: the desktop's keyring, the config file readable by this user alone (no keyring runs), or nowhere (no token)." }),
      window_state: Type.Optional(WindowShown({ description: "The native window now, as the window.state push later says it." })),
    }),
  },
  /** The native window's title (the page's own title, as a person reads it in the task bar). */
  "window.set_title": { params: Closed({ title: Type.String({ minLength: 1, maxLength: 200 }) }), result: Empty() },
  /** Brings the window to the front (a notification's click, a deep link): GTK's present. */
  "window.present": { params: Empty(), result: Empty() },
  "window.minimize": { params: Empty(), result: Empty() },
  /**
   * Puts text on the person's clipboard: the Capability Gateway's `clipboard.write`, carried out natively (a
   * webview's own clipboard API wants a gesture in the page, and an app's click is in its frame).
   */
  "clipboard.write_text": { params: Closed({ text: Type.String({ maxLength: 1_048_576 }) }), result: Empty() },
  /**
   * Opens the desktop's own file chooser: the Capability Gateway's `file.pick`, carried out natively (a webview
   * opens its file input only from a click in the page itself, and an app's click is in its frame). `accept` holds
   * MIME types and extensions, as the capability's input. `files` is empty when the person closed the chooser
   * without choosing, or when what they chose is over `max_bytes` together (then `over_limit`: nothing is read past it).
   */
  "file.pick": {
    params: Closed({
      multiple: Type.Boolean(),
      accept: Type.Array(Type.String({ minLength: 1, maxLength: 127 }), { maxItems: 32 }),
      max_bytes: Type.Integer({ minimum: 1, maximum: HOST_CHANNEL_MAX_FILE_BYTES }),
    }),
    result: Closed({
      files: Type.Array(
        Closed({ name: Type.String({ minLength: 1, maxLength: 255 }), mime_type: Type.String({ minLength: 1, maxLength: 255 }), data: Type.String({ maxLength: Math.ceil(HOST_CHANNEL_MAX_FILE_BYTES / 3) * 4, description: "The file's bytes, base64." }) }),
        { maxItems: 64 },
      ),
      over_limit: Type.Boolean(),
    }),
  },
  /**
   * Saves a file where the person chooses, in the desktop's own save dialog: the Capability Gateway's `file.save`,
   * carried out natively. `saved: false` when the person closed the dialog without choosing.
   */
  "file.save": {
    params: Closed({
      name: Type.String({ minLength: 1, maxLength: 255 }),
      mime_type: Type.String({ minLength: 1, maxLength: 255 }),
      data: Type.String({ maxLength: Math.ceil(HOST_CHANNEL_MAX_FILE_BYTES / 3) * 4, description: "The file's bytes, base64." }),
    }),
    result: Closed({ saved: Type.Boolean() }),
  },
  /**
   * The host page is about to ask the webview for `permission` (the gateway's `microphone.record`, or its
   * `notification.show`), after the person allowed the app in the shell. The native side answers the next such ask
   * of the webview yes within `HOST_CHANNEL_EXPECTED_ASK_MS` and refuses every ask it was not told of: the webview's ask does not
   * say which frame it came from, so an ask that reached it from an app's frame is refused whatever WebKit let through.
   */
  "permission.expect": { params: Closed({ permission: StringEnum(["microphone", "notifications"] as const) }), result: Empty() },
}) as const satisfies Record<HostChannelMethod, { readonly params: TSchema; readonly result: TSchema }>);

export type HostChannelParams<M extends HostChannelMethod> = Static<(typeof METHODS)[M]["params"]>;
export type HostChannelResult<M extends HostChannelMethod> = Static<(typeof METHODS)[M]["result"]>;

const METHOD_NAMES: ReadonlySet<string> = new Set(HOST_CHANNEL_METHODS);
const isMethod = (name: string): name is HostChannelMethod => METHOD_NAMES.has(name);
const REQUEST_ID = /* @__PURE__ */ declared(() => schemaId("host-channel.request.v1"));
const RESPONSE_ID = /* @__PURE__ */ declared(() => schemaId("host-channel.response.v1"));
const PUSH_ID = /* @__PURE__ */ declared(() => schemaId("host-channel.push.v1"));
const paramsId = (method: string) => schemaId(`host-channel.method.${method}.params`);
const resultId = (method: string) => schemaId(`host-channel.method.${method}.result`);

const Head = /* @__PURE__ */ declared(() => ({
  channel: Type.Literal(HOST_CHANNEL),
  v: Type.Literal(HOST_CHANNEL_VERSION),
  id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
}));
export const HostChannelRequestSchema = /* @__PURE__ */ declared(() =>
  Closed(
    { ...Head, method: Type.String({ minLength: 1, maxLength: 64 }), params: Type.Object({}) },
    { $id: REQUEST_ID, title: "Native host channel v1 request" },
  ),
);
// An answer's id is 0 when it refuses a request too broken to have one.
const AnswerHead = /* @__PURE__ */ declared(() => ({ ...Head, id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) }));
export const HostChannelResponseSchema = /* @__PURE__ */ declared(() =>
  Type.Union(
    [
      Closed({ ...AnswerHead, result: Type.Object({}) }),
      Closed({ ...AnswerHead, error: Closed({ code: Type.String({ minLength: 1, maxLength: 64 }), message: Type.String({ maxLength: 2000 }) }) }),
    ],
    { $id: RESPONSE_ID, title: "Native host channel v1 response" },
  ),
);

/**
 * What the native side tells the page unasked (its push): `{ channel, v, push, params }`, carried as JSON text the
 * same way, from the host's isolated world to the host page alone. The page checks each against these schemas.
 */
/** The push names, as plain values (`PUSHES` holds their schemas). */
const PUSH_NAMES = ["window.state", "host.notifications"] as const;
export type HostChannelPushName = (typeof PUSH_NAMES)[number];
const PUSH_NAME_SET: ReadonlySet<string> = new Set(PUSH_NAMES);

const PUSHES = /* @__PURE__ */ declared(() => ({
  /**
   * The native window as a person sees it: `shown`, `hidden` (unmapped, or hidden by the program) or `minimized`
   * (the toplevel's state). Sent when it changes; the page tells the Runtime window_hidden or window_shown.
   */
  "window.state": { params: Closed({ state: WindowShown() }) },
  /** The desktop's notification service came or went (`host.info`'s `notifications` is no longer true). */
  "host.notifications": { params: Closed({ available: Type.Boolean() }) },
} as const satisfies Record<HostChannelPushName, { readonly params: TSchema }>));

export type HostChannelPushParams<P extends HostChannelPushName> = Static<(typeof PUSHES)[P]["params"]>;
export type HostChannelPush = { [P in HostChannelPushName]: { readonly push: P; readonly params: HostChannelPushParams<P> } }[HostChannelPushName];

const pushId = (push: string) => schemaId(`host-channel.push.${push}.params`);
export const HostChannelPushSchema = /* @__PURE__ */ declared(() => Closed(
  { channel: Type.Literal(HOST_CHANNEL), v: Type.Literal(HOST_CHANNEL_VERSION), push: Type.String({ minLength: 1, maxLength: 64 }), params: Type.Object({}) },
  { $id: PUSH_ID, title: "Native host channel v1 push" },
));

export const HOST_CHANNEL_SCHEMAS: readonly TSchema[] = /* @__PURE__ */ declared(() => [
  HostChannelRequestSchema,
  HostChannelResponseSchema,
  HostChannelPushSchema,
  ...Object.entries(PUSHES).map(([push, p]) => ({ ...p.params, $id: pushId(push), title: `${push} push` })),
  ...Object.entries(METHODS).flatMap(([method, m]) => [
    { ...m.params, $id: paramsId(method), title: `${method} params` },
    { ...m.result, $id: resultId(method), title: `${method} result` },
  ]),
]);

export type HostChannelRequest = { [M in HostChannelMethod]: { readonly id: number; readonly method: M; readonly params: HostChannelParams<M> } }[HostChannelMethod];
export type HostChannelAnswer = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

function check(id: string, value: unknown, code: ErrorCode): Result<true> {
  const validate: CompiledValidator | undefined = validators[id];
  if (validate === undefined) return fail(code, `no schema ${id}`);
  if (validate(value)) return ok(true);
  const { path, message } = describeSchemaError(validate.errors?.[0]);
  return fail(code, message, path);
}

/**
 * Native side: JSON text from the page → a checked request, or the typed refusal to send back. `id` is
 * set whenever the frame itself was sound, so the refusal reaches the caller that waits for it.
 */
export function decodeHostChannelRequest(text: string): Result<HostChannelRequest, { readonly id?: number; readonly code: ErrorCode; readonly message: string }> {
  const parsed = decodeJson(text, { maxBytes: HOST_CHANNEL_MAX_BYTES, maxDepth: 16 });
  if (!parsed.ok) return { ok: false, error: { code: parsed.error.code, message: parsed.error.message } };
  const frame = check(REQUEST_ID, parsed.value, "bridge_frame_invalid");
  if (!frame.ok) return { ok: false, error: { code: frame.error.code, message: frame.error.message } };
  const { id, method, params } = parsed.value as { id: number; method: string; params: unknown };
  if (!isMethod(method)) return { ok: false, error: { id, code: "method_not_found", message: `the native host has no method ${method}` } };
  const body = check(paramsId(method), params, "invalid_params");
  if (!body.ok) return { ok: false, error: { id, code: "invalid_params", message: `${body.error.path ?? ""} ${body.error.message}`.trim() } };
  return ok({ id, method, params } as HostChannelRequest);
}

/** Native side: the answer frame for `id`, as JSON text. */
export function encodeHostChannelAnswer(id: number | undefined, answer: HostChannelAnswer): string {
  const head = { channel: HOST_CHANNEL, v: HOST_CHANNEL_VERSION, id: id ?? 0 };
  return JSON.stringify(answer.ok ? { ...head, result: answer.result } : { ...head, error: { code: answer.code, message: answer.message.slice(0, 2000) } });
}

/** Page side: a request frame for `method`, as JSON text. */
export function encodeHostChannelRequest<M extends HostChannelMethod>(id: number, method: M, params: HostChannelParams<M>): string {
  return JSON.stringify({ channel: HOST_CHANNEL, v: HOST_CHANNEL_VERSION, id, method, params });
}

/**
 * Page side: the native answer to request `id` of `method` → its checked result, or the typed error the
 * native side sent (or `bridge_result_invalid` when the answer itself is not sound).
 */
export function decodeHostChannelResponse<M extends HostChannelMethod>(text: unknown, id: number, method: M): Result<HostChannelResult<M>> {
  if (typeof text !== "string") return fail("bridge_result_invalid", "the native answer is not text");
  const parsed = decodeJson(text, { maxBytes: HOST_CHANNEL_MAX_BYTES, maxDepth: 16 });
  if (!parsed.ok) return fail("bridge_result_invalid", parsed.error.message);
  const frame = check(RESPONSE_ID, parsed.value, "bridge_result_invalid");
  if (!frame.ok) return frame;
  const answer = parsed.value as { id: number; result?: unknown; error?: { code: string; message: string } };
  if (answer.error !== undefined) {
    // An id of 0 answers a request the native side could not read at all.
    if (answer.id !== id && answer.id !== 0) return fail("bridge_result_invalid", `an answer to request ${answer.id}, not ${id}`);
    return fail(isErrorCode(answer.error.code) ? answer.error.code : "bridge_result_invalid", answer.error.message);
  }
  if (answer.id !== id) return fail("bridge_result_invalid", `an answer to request ${answer.id}, not ${id}`);
  const body = check(resultId(method), answer.result, "bridge_result_invalid");
  if (!body.ok) return body;
  return ok(answer.result as HostChannelResult<M>);
}

/** Native side: a push frame, as JSON text. */
export function encodeHostChannelPush<P extends HostChannelPushName>(push: P, params: HostChannelPushParams<P>): string {
  return JSON.stringify({ channel: HOST_CHANNEL, v: HOST_CHANNEL_VERSION, push, params });
}

/** Page side: a push's JSON text → the checked push, or `bridge_frame_invalid` / `invalid_params` for one that is not sound. */
export function decodeHostChannelPush(text: unknown): Result<HostChannelPush> {
  if (typeof text !== "string") return fail("bridge_frame_invalid", "the native push is not text");
  const parsed = decodeJson(text, { maxBytes: HOST_CHANNEL_MAX_BYTES, maxDepth: 16 });
  if (!parsed.ok) return fail("bridge_frame_invalid", parsed.error.message);
  const frame = check(PUSH_ID, parsed.value, "bridge_frame_invalid");
  if (!frame.ok) return frame;
  const { push, params } = parsed.value as { push: string; params: unknown };
  if (!PUSH_NAME_SET.has(push)) return fail("method_not_found", `the page knows no native push ${push}`);
  const body = check(pushId(push), params, "invalid_params");
  if (!body.ok) return body;
  return ok({ push, params } as HostChannelPush);
}
