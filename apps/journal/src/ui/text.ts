/**
 * The journal's words in the language LineUp tells it (the Host Bridge snapshot's `locale`, and its
 * changes): Simplified Chinese for a Chinese locale, English otherwise. Both tables have the same members.
 */
import { isSimplifiedChinese } from "@lineup/surface-sdk";
import type { SummaryRun } from "../journal.js";

export interface JournalText {
  readonly title: string;
  readonly standalone: string;
  usage(records: number, kilobytes: number, megabytes: number): string;
  readonly write: string;
  readonly day: string;
  readonly mood: string;
  readonly moodPlaceholder: string;
  readonly entryTitle: string;
  readonly entry: string;
  readonly keepEntry: string;
  readonly summaries: string;
  readonly yourWeek: string;
  readonly summarize: string;
  week(from: string, to: string): string;
  run(status: SummaryRun["status"], declined: boolean, error: string): string;
  readonly keepIt: string;
  readonly dontKeep: string;
  readonly stop: string;
  readonly entries: string;
  readonly search: string;
  readonly searchButton: string;
  readonly showAll: string;
  readonly edit: string;
  readonly delete: string;
  readonly importTitle: string;
  readonly importButton: string;
}

const EN: JournalText = {
  title: "Journal",
  standalone: "Open this journal in LineUp: its entries live in the app's storage there.",
  usage: (records, kilobytes, megabytes) => `${records} ${records === 1 ? "entry" : "entries"} · ${kilobytes} KB of ${megabytes} MB`,
  write: "Write an entry",
  day: "Day",
  mood: "Mood",
  moodPlaceholder: "calm, tired…",
  entryTitle: "Title",
  entry: "Entry",
  keepEntry: "Keep entry",
  summaries: "Summaries",
  yourWeek: "Your week",
  summarize: "Summarize my week",
  week: (from, to) => `Week ${from} – ${to}`,
  run: (status, declined, error) =>
    ({ running: "Working on it…", waiting_for_user: "Keep this summary?", completed: "Kept.", failed: declined ? "Not kept." : `Failed: ${error}`, cancelled: "Stopped." })[status],
  keepIt: "Keep it",
  dontKeep: "Don't keep it",
  stop: "Stop",
  entries: "Entries",
  search: "Search your entries",
  searchButton: "Search",
  showAll: "Show all",
  edit: "Edit",
  delete: "Delete",
  importTitle: "Import from text",
  importButton: "Import",
};

const ZH: JournalText = {
  title: "日记",
  standalone: "请在 LineUp 中打开这本日记：日记内容保存在那里的应用存储中。",
  usage: (records, kilobytes, megabytes) => `${records} 篇 · 已用 ${kilobytes} KB，共 ${megabytes} MB`,
  write: "写一篇日记",
  day: "日期",
  mood: "心情",
  moodPlaceholder: "平静、疲惫…",
  entryTitle: "标题",
  entry: "内容",
  keepEntry: "保存日记",
  summaries: "总结",
  yourWeek: "你的一周",
  summarize: "总结我的一周",
  week: (from, to) => `${from} 至 ${to} 这一周`,
  run: (status, declined, error) =>
    ({ running: "正在处理…", waiting_for_user: "保留这份总结吗？", completed: "已保留。", failed: declined ? "未保留。" : `失败：${error}`, cancelled: "已停止。" })[status],
  keepIt: "保留",
  dontKeep: "不保留",
  stop: "停止",
  entries: "日记",
  search: "搜索你的日记",
  searchButton: "搜索",
  showAll: "显示全部",
  edit: "编辑",
  delete: "删除",
  importTitle: "从文本导入",
  importButton: "导入",
};

export function journalText(locale: string): JournalText {
  return isSimplifiedChinese(locale) ? ZH : EN;
}
