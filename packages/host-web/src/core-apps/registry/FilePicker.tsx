/**
 * A file button: a real `<input type="file">` inside its label, so it is reachable with Tab, opens
 * with Enter or Space, and is named by the label text ("Install from file…"). Only bundles are offered.
 */
import { takePickedFile, type PickedFile } from "./read-file.js";

export const BUNDLE_ACCEPT = ".lineup,application/zip";

export function FilePicker({ label, onPick, disabled = false, name }: { label: string; onPick: (file: PickedFile) => void; disabled?: boolean; name?: string }) {
  const onChange = (event: Event) => {
    const input = event.currentTarget as HTMLInputElement;
    void takePickedFile(input).then((file) => {
      if (file !== undefined) onPick(file);
    });
  };
  return (
    <label class={disabled ? "file-button disabled" : "file-button"}>
      <input type="file" class="file-input" accept={BUNDLE_ACCEPT} disabled={disabled} onChange={onChange} {...(name === undefined ? {} : { "aria-label": name })} />
      <span aria-hidden={name === undefined ? undefined : "true"}>{label}</span>
    </label>
  );
}
