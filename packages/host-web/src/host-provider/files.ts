/**
 * `file.pick` and `file.save` in the browser. Picking opens a hidden `<input type=file>` of the host
 * document (never the app's frame) and reads the chosen files as base64 artifacts; closing the picker
 * is `cancelled_by_user` (the input's `cancel` event). Saving uses `showSaveFilePicker` where the
 * browser has it and otherwise a download through an `<a download>` and a Blob URL. In a native window (the
 * desktop host) both are the desktop's own dialogs: the input's chooser is answered natively, and a save goes
 * over the host channel (`file.save`).
 */
import { bytesToBase64, capabilityCompleted, type CapabilityResult } from "@lineup/protocol";
import type { HostArtifactValue, HostInvocation } from "@lineup/runtime";
import { ensureUserActivation, type ProviderContext } from "./context.js";
import { checkFilePickInput, checkFileSaveInput } from "./inputs.js";
import { acceptAttribute, artifactJson, cancelledByUser, nativeFailure, tooLarge } from "./outcomes.js";
import { t } from "../i18n/index.js";
import type { NativeHost } from "../bootstrap/native-host.js";

/** How long a download's Blob URL stays valid after the click starts it. */
const BLOB_URL_LIFETIME_MS = 10_000;

/** Waits for the input's choice: the files, or undefined when the picker closed without one or the request was aborted. */
function choose(input: HTMLInputElement, signal: AbortSignal): Promise<readonly File[] | undefined> {
  return new Promise((resolve) => {
    const done = (files: readonly File[] | undefined) => {
      input.removeEventListener("change", onChange);
      input.removeEventListener("cancel", onCancel);
      signal.removeEventListener("abort", onCancel);
      resolve(files);
    };
    const onChange = () => done([...(input.files ?? [])]);
    const onCancel = () => done(undefined);
    input.addEventListener("change", onChange);
    input.addEventListener("cancel", onCancel);
    signal.addEventListener("abort", onCancel);
    input.click();
  });
}

export async function pickFiles(invocation: HostInvocation, context: ProviderContext, native?: Promise<NativeHost | undefined>): Promise<CapabilityResult> {
  const checked = checkFilePickInput(invocation.input, context.maxArtifactBytes);
  if (!checked.ok) return checked.refusal;
  const { accept, multiple, max_bytes } = checked.value;
  const host = await native;
  if (host !== undefined) {
    if (invocation.signal.aborted) return cancelledByUser("file.pick");
    // The desktop's own chooser: it needs no click in the page, and the person chooses there.
    const picked = await host.request("file.pick", { multiple, accept: [...accept], max_bytes });
    if (!picked.ok) return nativeFailure("file.pick", new Error(`${picked.error.code}: ${picked.error.message}`));
    if (picked.value.over_limit) return tooLarge(multiple ? "the chosen files together" : "the chosen file", max_bytes);
    if (picked.value.files.length === 0 || invocation.signal.aborted) return cancelledByUser("file.pick");
    const files = picked.value.files.map((file) => ({ name: file.name, mime_type: file.mime_type, size: Math.floor((file.data.length * 3) / 4) - (file.data.endsWith("==") ? 2 : file.data.endsWith("=") ? 1 : 0), data: file.data }));
    return capabilityCompleted({ files: files.map(artifactJson) });
  }
  const appName = context.appName(invocation.app_scope);
  const go = await ensureUserActivation(context, invocation, {
    title: t(multiple ? "pick.titleMany" : "pick.titleOne", { app: appName }),
    detail: t(multiple ? "pick.detailMany" : "pick.detailOne", { app: appName }),
    action: t(multiple ? "pick.actionMany" : "pick.actionOne"),
  });
  if (!go || invocation.signal.aborted) return cancelledByUser("file.pick");
  const input = document.createElement("input");
  input.type = "file";
  input.hidden = true;
  input.multiple = multiple;
  if (accept.length > 0) input.accept = acceptAttribute(accept);
  document.body.append(input);
  try {
    const files = await choose(input, invocation.signal);
    if (files === undefined || files.length === 0 || invocation.signal.aborted) return cancelledByUser("file.pick");
    let total = 0;
    for (const file of files) {
      if (file.size > max_bytes) return tooLarge("the chosen file", max_bytes);
      total += file.size;
    }
    if (total > max_bytes) return tooLarge("the chosen files together", max_bytes);
    const picked: HostArtifactValue[] = [];
    for (const file of files) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      if (invocation.signal.aborted) return cancelledByUser("file.pick");
      picked.push({ name: file.name.slice(0, 255) || "file", mime_type: file.type || "application/octet-stream", size: bytes.byteLength, data: bytesToBase64(bytes) });
    }
    return capabilityCompleted({ files: picked.map(artifactJson) });
  } catch (error) {
    return nativeFailure("file.pick", error);
  } finally {
    input.remove();
  }
}

interface WritableFile {
  write(data: Blob): Promise<void>;
  close(): Promise<void>;
  abort?(): Promise<void>;
}
type SaveFilePicker = (options: { suggestedName: string; types?: { description?: string; accept: Record<string, string[]> }[] }) => Promise<{ createWritable(): Promise<WritableFile> }>;

function saveFilePicker(): SaveFilePicker | undefined {
  const picker = (window as Window & { showSaveFilePicker?: SaveFilePicker }).showSaveFilePicker;
  return typeof picker === "function" ? picker.bind(window) : undefined;
}

function extensionOf(name: string): string | undefined {
  const match = /\.[A-Za-z0-9]{1,16}$/.exec(name);
  return match?.[0];
}

function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.rel = "noopener";
  link.hidden = true;
  document.body.append(link);
  try {
    link.click();
  } finally {
    link.remove();
    // Revoking at once can cancel the download before the browser has read the Blob.
    setTimeout(() => URL.revokeObjectURL(url), BLOB_URL_LIFETIME_MS);
  }
}

export async function saveFile(invocation: HostInvocation, context: ProviderContext, native?: Promise<NativeHost | undefined>): Promise<CapabilityResult> {
  const checked = checkFileSaveInput(invocation.input, context.maxArtifactBytes);
  if (!checked.ok) return checked.refusal;
  const { name, mime_type, bytes } = checked.value;
  const host = await native;
  if (host !== undefined) {
    if (invocation.signal.aborted) return cancelledByUser("file.save");
    // The desktop's save dialog: the person chooses where, or closes it.
    const saved = await host.request("file.save", { name, mime_type, data: bytesToBase64(bytes) });
    if (!saved.ok) return nativeFailure("file.save", new Error(`${saved.error.code}: ${saved.error.message}`));
    return saved.value.saved ? capabilityCompleted({ saved: true }) : cancelledByUser("file.save");
  }
  const blob = new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime_type });
  const picker = saveFilePicker();
  try {
    if (picker !== undefined) {
      const appName = context.appName(invocation.app_scope);
      const go = await ensureUserActivation(context, invocation, { title: t("save.title", { app: appName }), detail: t("save.detail", { app: appName, name, size: t("bytes.byte", { n: bytes.byteLength }) }), action: t("save.action") });
      if (!go || invocation.signal.aborted) return cancelledByUser("file.save");
      const extension = extensionOf(name);
      const handle = await picker({ suggestedName: name, ...(extension === undefined ? {} : { types: [{ accept: { [mime_type]: [extension] } }] }) });
      if (invocation.signal.aborted) return cancelledByUser("file.save");
      const writable = await handle.createWritable();
      await writable.write(blob);
      await writable.close();
    } else {
      if (invocation.signal.aborted) return cancelledByUser("file.save");
      download(blob, name);
    }
    return capabilityCompleted({ saved: true });
  } catch (error) {
    return nativeFailure("file.save", error);
  }
}
