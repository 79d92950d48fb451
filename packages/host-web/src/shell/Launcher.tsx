/**
 * The launcher (issue 21, "Opening and switching"): a modal dialog with a search box over every app a person
 * may open, the apps open now first. Keyboard: Ctrl/⌘+K opens it (the shell listens), typing filters, ↑/↓
 * choose, Enter opens in the chosen place, Shift+Enter in a new conversation, Esc closes. The search box is
 * a combobox driving a listbox, so a screen reader hears the row chosen while focus stays in the box.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { JSX } from "preact";
import { iconHue, launcherItems, type LauncherApp, type LauncherInstance, type LauncherItem } from "./launcher-items.js";
import type { OpenWhere } from "./opener.js";
import { t } from "../i18n/index.js";
import "./launcher.css";

export interface LauncherProps {
  readonly open: boolean;
  readonly onClose: () => void;
  /** Read when the launcher opens: what can be opened and what is open now (most recent first). */
  readonly contents: () => { readonly apps: readonly LauncherApp[]; readonly recent: readonly LauncherInstance[] };
  /** The conversation on screen, which "This conversation" means; undefined when none is. */
  readonly current?: { readonly conversation_id: string; readonly title: string };
  readonly onOpenApp: (app: LauncherApp, where: OpenWhere) => void;
  readonly onSwitch: (instanceId: string) => void;
}

export function Launcher({ open, onClose, contents, current, onOpenApp, onSwitch }: LauncherProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const search = useRef<HTMLInputElement>(null);
  const opener = useRef<Element | null>(null);
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const [inNew, setInNew] = useState(false);
  // Read once per opening: the list does not move under the person's keys.
  const listed = useMemo(() => (open ? contents() : { apps: [], recent: [] }), [open]);
  const items = useMemo(() => launcherItems({ ...listed, query }), [listed, query]);

  useLayoutEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open && !element.open) {
      opener.current = document.activeElement;
      setQuery("");
      setActive(0);
      setInNew(current === undefined);
      element.showModal();
      search.current?.focus();
    } else if (!open && element.open) element.close();
  }, [open]);
  useEffect(() => setActive(0), [query]);
  useEffect(() => {
    document.getElementById(optionId(items[active]))?.scrollIntoView({ block: "nearest" });
  }, [active, items]);

  const choose = (item: LauncherItem | undefined, forceNew: boolean) => {
    if (item === undefined) return;
    onClose();
    if (item.kind === "instance") onSwitch(item.instance_id);
    else onOpenApp(item, forceNew || inNew || current === undefined ? { kind: "new" } : { kind: "conversation", conversation_id: current.conversation_id });
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (items.length === 0) return;
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((i) => (i + step + items.length) % items.length);
      event.preventDefault();
    } else if (event.key === "Home" || event.key === "End") {
      setActive(event.key === "Home" ? 0 : Math.max(0, items.length - 1));
      event.preventDefault();
    } else if (event.key === "Enter") {
      choose(items[active], event.shiftKey);
      event.preventDefault();
    }
  };
  // Escape closes the dialog at once but its close event comes a task later, and the next key (Ctrl+K again) may
  // come first: the shell learns of the closing from the cancel event, in the same task as the Escape.
  const onDialogCancel = () => {
    if (open) onClose();
  };
  const onDialogClose = () => {
    // The close event of an earlier closing, arriving after the launcher was opened again: not this opening's.
    if (dialog.current?.open === true) return;
    if (open) onClose();
    // Back where the person was (the switcher's button, the chat's composer).
    if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
  };

  const activeItem = items[active];
  const row = (item: LauncherItem, index: number) => <Row key={item.key} item={item} active={index === active} onPick={() => choose(item, false)} onHover={() => setActive(index)} />;
  return (
    <dialog ref={dialog} class="launcher" aria-labelledby="launcher-title" onCancel={onDialogCancel} onClose={onDialogClose} onClick={(e) => e.target === dialog.current && onClose()}>
      {!open ? null : (
        <div class="launcher-body">
          <h2 id="launcher-title" class="sr-only">
            {t("launcher.title")}
          </h2>
          <div class="launcher-search">
            <svg class="launcher-search-icon" viewBox="0 0 20 20" width="18" height="18" aria-hidden="true">
              <circle cx="8.5" cy="8.5" r="5.75" fill="none" stroke="currentColor" stroke-width="2" />
              <path d="M13 13l4.5 4.5" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
            </svg>
            <input
              ref={search}
              type="text"
              role="combobox"
              aria-label={t("launcher.search")}
              aria-expanded="true"
              aria-controls="launcher-list"
              aria-autocomplete="list"
              aria-activedescendant={activeItem === undefined ? undefined : optionId(activeItem)}
              placeholder={t("launcher.placeholder")}
              autocomplete="off"
              spellcheck={false}
              value={query}
              onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
              onKeyDown={onKeyDown}
            />
            <kbd class="launcher-esc" aria-hidden="true">
              Esc
            </kbd>
          </div>
          {items.length === 0 ? <p class="launcher-empty muted">{t("launcher.noMatch", { query })}</p> : null}
          <div id="launcher-list" class="launcher-list" role="listbox" aria-label={t("launcher.list")}>
            <Group id="launcher-open-now" title={t("launcher.openNow")} rows={items.flatMap((item, index) => (item.kind === "instance" ? [row(item, index)] : []))} />
            <Group id="launcher-apps" title={t(query === "" ? "launcher.allApps" : "launcher.apps")} rows={items.flatMap((item, index) => (item.kind === "app" && !item.core ? [row(item, index)] : []))} />
            <Group id="launcher-core" title="LineUp" rows={items.flatMap((item, index) => (item.kind === "app" && item.core ? [row(item, index)] : []))} />
          </div>
          <div class="launcher-foot">
            <fieldset class="launcher-where">
              <legend>{t("launcher.openIn")}</legend>
              <label class={current === undefined ? "disabled" : undefined}>
                <input type="radio" name="launcher-where" checked={!inNew && current !== undefined} disabled={current === undefined} onChange={() => setInNew(false)} />
                <span>
                  {current === undefined ? (
                    t("launcher.thisConversation")
                  ) : (
                    <>
                      {t("launcher.thisConversationNamed")}
                      <span class="launcher-where-title">{current.title}</span>
                    </>
                  )}
                </span>
              </label>
              <label>
                <input type="radio" name="launcher-where" checked={inNew || current === undefined} onChange={() => setInNew(true)} />
                <span>{t("launcher.newConversation")}</span>
              </label>
            </fieldset>
            <p class="launcher-keys muted" aria-hidden="true">
              <kbd>↑</kbd>
              <kbd>↓</kbd> {t("launcher.keyChoose")} · <kbd>Enter</kbd> {t("launcher.keyOpen")} · <kbd>Shift</kbd>+<kbd>Enter</kbd> {t("launcher.keyNew")}
            </p>
          </div>
        </div>
      )}
    </dialog>
  );
}

const optionId = (item: LauncherItem | undefined): string => (item === undefined ? "" : `launcher-${item.key.replace(/[^A-Za-z0-9_-]/g, "-")}`);

/** A titled group of rows; nothing when it has none. */
function Group({ id, title, rows }: { id: string; title: string; rows: readonly JSX.Element[] }) {
  if (rows.length === 0) return null;
  return (
    <div role="group" aria-labelledby={id}>
      <div id={id} class="launcher-group" role="presentation">
        {title}
      </div>
      {rows}
    </div>
  );
}

function Row({ item, active, onPick, onHover }: { item: LauncherItem; active: boolean; onPick: () => void; onHover: () => void }) {
  const id = optionId(item);
  const detail = item.kind === "instance" ? (item.conversation === undefined ? t("launcher.openNow") : t("launcher.openNowIn", { conversation: item.conversation })) : item.summary;
  return (
    <div
      id={id}
      role="option"
      aria-selected={active}
      aria-label={item.kind === "instance" ? (item.conversation === undefined ? t("launcher.rowOpenNow", { name: item.name }) : t("launcher.rowOpenNowIn", { name: item.name, conversation: item.conversation })) : item.name}
      aria-describedby={item.kind === "app" ? `${id}-detail` : undefined}
      class={active ? "launcher-row active" : "launcher-row"}
      data-app={item.app_scope}
      data-kind={item.kind}
      onClick={onPick}
      onMouseMove={active ? undefined : onHover}
    >
      <span class={item.kind === "app" && item.core ? "launcher-icon core" : "launcher-icon"} style={{ "--hue": String(iconHue(item.app_scope)) }} aria-hidden="true">
        {Array.from(item.name)[0]?.toUpperCase() ?? "?"}
      </span>
      <span class="launcher-text">
        <span class="launcher-name">{item.name}</span>
        <span id={`${id}-detail`} class="launcher-detail">
          {detail}
        </span>
      </span>
      {item.kind === "instance" ? (
        <span class="launcher-tag" aria-hidden="true">
          {t("launcher.switch")}
        </span>
      ) : null}
    </div>
  );
}
