import { Component, type RefObject } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { ConversationSummary } from "@lineup/runtime";
import { conversationLabel } from "./selection.js";
import { t, type UiLanguage } from "../../i18n/index.js";

/**
 * From this many conversations the list renders only the rows in view and OVERSCAN rows either side of them, with
 * the rest of the list's height as padding: a person with a thousand conversations gets some sixty rows built, laid
 * out and kept up to date, not a thousand. Every row is one line (its title cut with an ellipsis), so each takes the
 * same height, measured on the rows rendered. A shorter list renders every row.
 *
 * The list is one stop of the Tab key, its current row: the one last focused in it, else the conversation on screen,
 * else the newest. The arrow keys, Home and End move between all the conversations. The current row is always
 * rendered, in or out of the window, so the focus stays on it when the list is scrolled far away, and Tab still
 * finds the list; a focused row whose conversation moves in the list keeps the focus too.
 */
export const WINDOW_FROM = 100;
const OVERSCAN = 20;
/** A row's height and the space after it before one is measured: 2.5rem and 0.25rem at 16px. */
const ESTIMATED_PITCH = 44;

interface ConversationListProps {
  /** In the order the list shows them (`chatConversations`: where something was said last first). */
  readonly conversations: readonly ConversationSummary[];
  /** The conversation on screen (undefined while a new one is drafted). */
  readonly activeId: string | undefined;
  readonly onSelect: (conversationId: string) => void;
  readonly language: UiLanguage;
  /** The element the list scrolls in (the chat's column of conversations). */
  readonly scroller: RefObject<HTMLElement>;
}

/** The rows of `count` in view of a list `listTop` below the top of a scroller at `scrollTop`, `height` high. */
export function rowsInView(count: number, pitch: number, listTop: number, scrollTop: number, height: number): { readonly first: number; readonly last: number } {
  const top = scrollTop - listTop;
  const first = Math.max(0, Math.min(count, Math.floor(top / pitch) - OVERSCAN));
  const last = Math.max(first, Math.min(count, Math.ceil((top + height) / pitch) + OVERSCAN));
  return { first, last };
}

/** The button of the row at `index` in the list, if it is rendered. */
const rowButton = (ul: HTMLUListElement, index: number): HTMLButtonElement | null => ul.querySelector<HTMLButtonElement>(`li[data-index="${index}"] > button`);

/** The index of the list's current row (see above), or -1 for an empty list. */
export function indexOfCurrent(conversations: readonly ConversationSummary[], focusedId: string | undefined, activeId: string | undefined): number {
  for (const id of [focusedId, activeId]) {
    if (id === undefined) continue;
    const index = conversations.findIndex((c) => c.conversation_id === id);
    if (index >= 0) return index;
  }
  return conversations.length === 0 ? -1 : 0;
}

export function ConversationList({ conversations, activeId, onSelect, language, scroller }: ConversationListProps) {
  const list = useRef<HTMLUListElement>(null);
  const windowed = conversations.length >= WINDOW_FROM;
  /** Where the list is in its scroller and how much of it shows: read on scroll and resize, a frame at most apart. */
  const [view, setView] = useState({ listTop: 0, scrollTop: 0, height: 0, pitch: ESTIMATED_PITCH });

  useLayoutEffect(() => {
    const el = scroller.current;
    const ul = list.current;
    if (!windowed || el === null || ul === null) return;
    let frame: number | undefined;
    const measure = (): void => {
      frame = undefined;
      const rows = ul.children;
      // The distance between two rows' tops is a row and the space after it.
      const pitch = rows.length >= 2 ? rows[1]!.getBoundingClientRect().top - rows[0]!.getBoundingClientRect().top : 0;
      const listTop = ul.getBoundingClientRect().top - el.getBoundingClientRect().top + el.scrollTop;
      setView((was) => {
        const next = { listTop, scrollTop: el.scrollTop, height: el.clientHeight, pitch: pitch > 0 ? pitch : was.pitch };
        return next.listTop === was.listTop && next.scrollTop === was.scrollTop && next.height === was.height && next.pitch === was.pitch ? was : next;
      });
    };
    const later = (): void => {
      frame ??= requestAnimationFrame(measure);
    };
    measure();
    el.addEventListener("scroll", later, { passive: true });
    const resized = new ResizeObserver(later);
    resized.observe(el);
    return () => {
      if (frame !== undefined) cancelAnimationFrame(frame);
      el.removeEventListener("scroll", later);
      resized.disconnect();
    };
  }, [windowed, scroller]);

  const { first, last } = windowed ? rowsInView(conversations.length, view.pitch, view.listTop, view.scrollTop, view.height) : { first: 0, last: conversations.length };

  // The current row: where Tab enters the list. A row focused becomes it; when another conversation comes on screen
  // while the focus is elsewhere, the list's stop follows it.
  const [focusedId, setFocusedId] = useState<string | undefined>(undefined);
  useLayoutEffect(() => {
    const ul = list.current;
    if (ul !== null && !ul.contains(document.activeElement)) setFocusedId(undefined);
  }, [activeId]);
  const currentIndex = indexOfCurrent(conversations, focusedId, activeId);
  const currentAbove = currentIndex >= 0 && currentIndex < first;
  const currentBelow = currentIndex >= last;

  // A focused row whose conversation moves in the list (something was said in it) is moved in the page, which takes the
  // focus away from it: whether the list held the focus is read as it renders, and the row focused again after.
  const heldFocus = useRef(false);
  heldFocus.current = list.current?.contains(document.activeElement) === true;
  useLayoutEffect(() => {
    const ul = list.current;
    if (!heldFocus.current || ul === null || (document.activeElement !== null && document.activeElement !== document.body)) return;
    rowButton(ul, currentIndex)?.focus({ preventScroll: true });
  });

  // A row moved to with the keyboard is brought into the window, and focused once it is rendered.
  const focusing = useRef<number | undefined>(undefined);
  const [, moved] = useState(0);
  useLayoutEffect(() => {
    const index = focusing.current;
    const ul = list.current;
    if (index === undefined || ul === null) return;
    const button = rowButton(ul, index);
    if (button === null) return;
    focusing.current = undefined;
    button.focus();
  });
  const rowIndex = (target: EventTarget | null): number | undefined => {
    const row = (target as Element | null)?.closest?.("li");
    const ul = list.current;
    if (ul === null || row === null || row === undefined || row.parentElement !== ul) return undefined;
    return Number(row.dataset["index"]);
  };
  const onFocusIn = (event: FocusEvent): void => {
    const at = rowIndex(event.target);
    const id = at === undefined ? undefined : conversations[at]?.conversation_id;
    if (id !== undefined && id !== focusedId) setFocusedId(id);
  };
  const onKeyDown = (event: KeyboardEvent): void => {
    const at = rowIndex(event.target);
    if (at === undefined || conversations.length === 0) return;
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: conversations.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const next = Math.max(0, Math.min(conversations.length - 1, to));
    focusing.current = next;
    setFocusedId(conversations[next]!.conversation_id);
    const el = scroller.current;
    if (windowed && el !== null && (next < first || next >= last)) el.scrollTop = view.listTop + next * view.pitch - el.clientHeight / 2;
    moved((n) => n + 1);
  };
  // The current row out of the window takes the place of one row of padding on its side: the rows in the window stay
  // where they belong, and it stays rendered, out of sight.
  const style = windowed ? { paddingTop: `${(first - (currentAbove ? 1 : 0)) * view.pitch}px`, paddingBottom: `${(conversations.length - last - (currentBelow ? 1 : 0)) * view.pitch}px` } : undefined;
  const row = (index: number): preact.JSX.Element => {
    const c = conversations[index]!;
    return (
      <ConversationItem
        key={c.conversation_id}
        summary={c}
        active={c.conversation_id === activeId}
        onSelect={onSelect}
        language={language}
        index={index}
        current={index === currentIndex}
        {...(windowed ? { position: index + 1, of: conversations.length } : {})}
      />
    );
  };
  const rows: preact.JSX.Element[] = [];
  if (currentAbove) rows.push(row(currentIndex));
  for (let index = first; index < last; index++) rows.push(row(index));
  if (currentBelow) rows.push(row(currentIndex));
  return (
    <ul class="conversation-list" ref={list} style={style} onKeyDown={onKeyDown} onFocusIn={onFocusIn}>
      {rows}
    </ul>
  );
}

interface ConversationItemProps {
  readonly summary: ConversationSummary;
  /** The conversation on screen. */
  readonly active: boolean;
  readonly onSelect: (conversationId: string) => void;
  /** The UI language its words are in. */
  readonly language: UiLanguage;
  /** Where the row is in the list, from 0. */
  readonly index: number;
  /** The list's one stop of the Tab key. */
  readonly current: boolean;
  /** In a windowed list, where the row is in the whole list, from 1, and of how many (said to assistive technology, which sees only the rows rendered). */
  readonly position?: number;
  readonly of?: number;
}

/**
 * One conversation in the list. Rendered again only when its summary is another object (the Runtime keeps an
 * unchanged summary's object from one view to the next), it becomes or stops being the one on screen, its place in a
 * windowed list changes, it becomes or stops being the list's stop of the Tab key, or the UI language does.
 */
class ConversationItem extends Component<ConversationItemProps> {
  override shouldComponentUpdate(next: ConversationItemProps): boolean {
    const { summary, active, onSelect, language, index, current, position, of } = this.props;
    return (
      next.summary !== summary || next.active !== active || next.onSelect !== onSelect || next.language !== language || next.index !== index || next.current !== current || next.position !== position || next.of !== of
    );
  }

  override render() {
    const { summary: c, active, onSelect, index, current, position, of } = this.props;
    return (
      <li data-index={index} aria-posinset={position} aria-setsize={of}>
        <button type="button" tabIndex={current ? 0 : -1} class={active ? "conversation-item active" : "conversation-item"} aria-current={active ? "true" : undefined} onClick={() => onSelect(c.conversation_id)}>
          <span class="conversation-title">{conversationLabel(c)}</span>
          <span class="muted conversation-meta">
            {c.status === "live" ? "" : t(`conversation.${c.status}`)}
            {c.unread === 0 ? null : active ? (
              // On screen, what is left counted is what waits for an answer (a card), not unread text.
              <span class="badge waiting" aria-label={t("chat.waitingForAnswer", { count: c.unread })} title={t("chat.waitingForAnswerTitle")}>
                {c.unread}
              </span>
            ) : (
              <span class="badge" aria-label={t("chat.unread", { count: c.unread })}>
                {c.unread}
              </span>
            )}
          </span>
        </button>
      </li>
    );
  }
}
