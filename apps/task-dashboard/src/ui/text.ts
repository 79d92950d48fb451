/**
 * The task dashboard's words in the language LineUp tells it (the Host Bridge snapshot's `locale`, and its
 * changes): Simplified Chinese for a Chinese locale, English otherwise. Both tables have the same members. What
 * the agent or the person wrote (a task's text, a file's name, a result) is shown as written.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { AgentTaskStatus } from "@lineup/protocol";
import { isSimplifiedChinese } from "@lineup/surface-sdk";
import { ENGLISH_TITLES, ENTRIES, englishProblem, type EntryId, type EntryInfo, type InputProblem, type TitleWords } from "../entries.js";
import { STATUS_LABELS, type TaskControlName } from "../model/controls.js";
import { sizeText } from "../model/files.js";
import { resultHeadline, type ResultView } from "../model/results.js";
import { ENGLISH_ATTEMPT, type AttemptWords } from "../model/task-view.js";
import { problemText, type StoreProblem } from "../task-store.js";

export interface DashboardText {
  readonly locale: string;
  readonly title: string;
  readonly intro: string;
  readonly standalone: string;
  readonly tasks: string;
  readonly loading: string;
  readonly noTasks: string;
  filesUnreadable(reason: string): string;
  /** Why something was refused or failed: the refusal's own sentence in English, its code's words otherwise. */
  reason(error: unknown): string;
  /** What the task store could not do, and why. */
  storeProblem(problem: StoreProblem): string;
  // Forms
  readonly askTheAgent: string;
  readonly entries: Readonly<Record<EntryId, EntryInfo>>;
  couldNotAsk(reason: string): string;
  readonly readingFiles: string;
  readonly noFiles: string;
  readonly filesToSummarize: string;
  readonly refreshFiles: string;
  readonly asking: string;
  readonly summarize: string;
  readonly notes: string;
  readonly topic: string;
  readonly notesPlaceholder: string;
  readonly topicPlaceholder: string;
  readonly planTheWeek: string;
  readonly writeTheNote: string;
  problem(problem: InputProblem): string;
  readonly titles: TitleWords;
  size(bytes: number): string;
  // A task
  readonly status: Readonly<Record<AgentTaskStatus, string>>;
  decided(label: string, decision: "accepted" | "rejected"): string;
  readonly controls: Readonly<Record<TaskControlName, string>>;
  readonly pending: Readonly<Record<TaskControlName | "export", string>>;
  stopped(why: string | undefined, wroteSomething: boolean): string;
  readonly editAndResubmit: string;
  readonly keepAsItWas: string;
  readonly resubmit: string;
  attempt(n: number): string;
  readonly progress: string;
  readonly queued: string;
  readonly whatTheAgentWrote: string;
  readonly toolsUsed: string;
  toolOutcome(outcome: "result" | "error" | undefined, code: string | undefined): string;
  references(n: number): string;
  filesSoFar(names: string): string;
  agentAsks(prompt: string): string;
  blocked(message: string, code: string): string;
  readonly couldNotFinish: string;
  readonly result: string;
  readonly accepted: string;
  rejected(reason: string | undefined): string;
  readonly earlierAttempts: string;
  readonly attemptLine: AttemptWords;
  readonly rejectReason: string;
  readonly taskControls: string;
  readonly exportEvidence: string;
  evidenceSaved(through: number): string;
  readonly digest: string;
  headline(view: ResultView): string;
  // A result
  readonly filesSummedUp: string;
  readonly file: string;
  readonly lines: string;
  readonly words: string;
  readonly beginsWith: string;
  readonly free: string;
  readonly unscheduled: string;
  day(day: string): string;
}

const EN: DashboardText = {
  locale: "en",
  title: "Task Dashboard",
  intro: "Work you hand to this conversation’s agent. Each task also shows in the chat.",
  standalone: "Open the Task Dashboard in LineUp to ask the agent for anything.",
  tasks: "Tasks",
  loading: "Loading your tasks…",
  noTasks: "No tasks yet. Ask the agent with one of the forms.",
  filesUnreadable: (reason) => `The conversation’s files could not be read: ${reason}`,
  reason: problemText,
  storeProblem: ({ kind, error }) =>
    kind === "list"
      ? `The tasks could not be listed: ${problemText(error)}`
      : kind === "follow"
        ? `This task cannot be followed: ${problemText(error)}`
        : kind === "not_followed"
          ? "This task is not followed here, so it cannot be changed."
          : kind === "export"
            ? `The evidence could not be exported: ${problemText(error)}`
            : problemText(error),
  askTheAgent: "Ask the agent",
  entries: ENTRIES,
  couldNotAsk: (reason) => `The agent could not be asked: ${reason}`,
  readingFiles: "Reading this conversation’s files…",
  noFiles: "No text files in this conversation yet. Share some in the chat, then refresh.",
  filesToSummarize: "Files to summarize",
  refreshFiles: "Refresh files",
  asking: "Asking…",
  summarize: "Summarize",
  notes: "Notes",
  topic: "Topic",
  notesPlaceholder: "Call the plumber\nDraft the budget\n?Sort the photos",
  topicPlaceholder: "Spring garden",
  planTheWeek: "Plan the week",
  writeTheNote: "Write the note",
  problem: englishProblem,
  titles: ENGLISH_TITLES,
  size: sizeText,
  status: STATUS_LABELS,
  decided: (label, decision) => `${label} · ${decision}`,
  controls: { cancel: "Cancel", retry: "Retry", resubmit: "Edit & resubmit", accept: "Accept", reject: "Reject" },
  pending: { cancel: "Cancelling…", retry: "Starting again…", resubmit: "Resubmitting…", accept: "Accepting…", reject: "Rejecting…", export: "Exporting…" },
  stopped: (why, wrote) => `Stopped before the agent finished${why === undefined ? "" : ` (${why})`}.${wrote ? " What it had written stays above." : ""}`,
  editAndResubmit: "Edit and resubmit",
  keepAsItWas: "Keep as it was",
  resubmit: "Resubmit",
  attempt: (n) => ` · attempt ${n}`,
  progress: "Progress",
  queued: "Waiting for the agent: it works on one thing at a time in this conversation.",
  whatTheAgentWrote: "What the agent wrote",
  toolsUsed: "Tools the agent used",
  toolOutcome: (outcome, code) => (outcome === undefined ? "running" : outcome === "result" ? "done" : `failed${code === undefined ? "" : ` (${code})`}`),
  references: (n) => `The agent used ${n === 1 ? "1 reference" : `${n} references`}.`,
  filesSoFar: (names) => `Files so far: ${names}`,
  agentAsks: (prompt) => `The agent asks: ${prompt} — answer in the chat.`,
  blocked: (message, code) => `Blocked: ${message} (${code})`,
  couldNotFinish: "The agent could not finish this task.",
  result: "Result",
  accepted: "You accepted this result.",
  rejected: (reason) => `You rejected this result${reason === undefined ? "." : `: ${reason}`}`,
  earlierAttempts: "Earlier attempts",
  attemptLine: ENGLISH_ATTEMPT,
  rejectReason: "Reason for rejecting (the agent is told)",
  taskControls: "Task controls",
  exportEvidence: "Export evidence",
  evidenceSaved: (through) => `Evidence pack of events 1–${through}, saved to this conversation’s files.`,
  digest: "Digest",
  headline: resultHeadline,
  filesSummedUp: "Files summed up",
  file: "File",
  lines: "Lines",
  words: "Words",
  beginsWith: "Begins with",
  free: "Free",
  unscheduled: "Unscheduled",
  day: (day) => day,
};

/** The refusals a task's controls, its files and the store meet, in Chinese, by code; any other reads as a refusal. */
const ZH_REASONS: Readonly<Record<string, string>> = {
  agent_unavailable: "智能体或服务器暂时无法连接",
  request_cancelled: "连接已中断",
  request_timeout: "请求超时",
  invalid_state: "任务当前的状态不允许这样做",
  not_found: "找不到它",
  policy_denied: "策略不允许",
  permission_denied: "没有权限",
  invalid_params: "请求的内容无效",
  quota_exceeded: "超出了存储配额",
  internal_error: "出了点问题",
};

function zhReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && Object.prototype.hasOwnProperty.call(ZH_REASONS, code) ? ZH_REASONS[code]! : "请求被拒绝了";
}

const ZH_DAYS: Readonly<Record<string, string>> = { Monday: "星期一", Tuesday: "星期二", Wednesday: "星期三", Thursday: "星期四", Friday: "星期五" };

const ZH: DashboardText = {
  locale: "zh-CN",
  title: "任务面板",
  intro: "你交给此对话智能体的工作。每个任务也会显示在聊天中。",
  standalone: "请在 LineUp 中打开任务面板，才能请智能体做事。",
  tasks: "任务",
  loading: "正在加载你的任务…",
  noTasks: "还没有任务。用其中一个表单请智能体做事。",
  filesUnreadable: (reason) => `无法读取此对话的文件：${reason}`,
  reason: zhReason,
  storeProblem: ({ kind, error }) =>
    kind === "list"
      ? `无法列出任务：${zhReason(error)}`
      : kind === "follow"
        ? `无法跟进此任务：${zhReason(error)}`
        : kind === "not_followed"
          ? "此处没有跟进这个任务，所以无法更改它。"
          : kind === "export"
            ? `无法导出证据：${zhReason(error)}`
            : `操作未完成：${zhReason(error)}`,
  askTheAgent: "请智能体做事",
  entries: {
    summarize_files: { title: "总结文件", hint: "选择此对话中的文本文件；智能体会逐一总结。" },
    plan_week: { title: "规划我的一周", hint: "每行一条笔记。可以推迟的，在行首加 ?。" },
    write_note: { title: "写一条笔记", hint: "一个主题；智能体会在你眼前写一条关于它的简短笔记。" },
  },
  couldNotAsk: (reason) => `无法请智能体做事：${reason}`,
  readingFiles: "正在读取此对话的文件…",
  noFiles: "此对话中还没有文本文件。先在聊天中分享一些，然后刷新。",
  filesToSummarize: "要总结的文件",
  refreshFiles: "刷新文件",
  asking: "正在请求…",
  summarize: "总结",
  notes: "笔记",
  topic: "主题",
  notesPlaceholder: "给水管工打电话\n起草预算\n?整理照片",
  topicPlaceholder: "春天的花园",
  planTheWeek: "规划这一周",
  writeTheNote: "写这条笔记",
  problem: (problem) => {
    switch (problem.kind) {
      case "no_files":
        return "请至少选择一个文件。";
      case "too_many_files":
        return `最多选择 ${problem.max} 个文件。`;
      case "no_notes":
        return "请至少写一条笔记。";
      case "no_topic":
        return "请写一个主题。";
      case "too_long":
        return `共 ${problem.length} 个字符；最多只能发送 ${problem.max} 个。`;
    }
  },
  titles: {
    summarizeOne: (name) => `总结 ${name}`,
    summarizeMany: (count) => `总结 ${count} 个文件`,
    planWeek: (count) => `根据 ${count} 条笔记规划我的一周`,
    writeNote: (topic) => `写一条关于“${topic}”的笔记`,
  },
  size: (bytes) => (bytes < 1024 ? `${bytes} 字节` : sizeText(bytes)),
  status: { queued: "等待开始", running: "进行中", waiting_for_user: "需要你", completed: "完成", failed: "失败", cancelled: "已停止" },
  decided: (label, decision) => `${label} · ${decision === "accepted" ? "已接受" : "已拒绝"}`,
  controls: { cancel: "取消", retry: "重试", resubmit: "编辑并重新提交", accept: "接受", reject: "拒绝" },
  pending: { cancel: "正在取消…", retry: "正在重新开始…", resubmit: "正在重新提交…", accept: "正在接受…", reject: "正在拒绝…", export: "正在导出…" },
  stopped: (why, wrote) => `在智能体完成前已停止${why === undefined ? "" : `（${why}）`}。${wrote ? "它已写下的内容保留在上方。" : ""}`,
  editAndResubmit: "编辑并重新提交",
  keepAsItWas: "保持原样",
  resubmit: "重新提交",
  attempt: (n) => ` · 第 ${n} 次尝试`,
  progress: "进度",
  queued: "等待智能体：它在此对话中一次只做一件事。",
  whatTheAgentWrote: "智能体写下的内容",
  toolsUsed: "智能体使用的工具",
  toolOutcome: (outcome, code) => (outcome === undefined ? "进行中" : outcome === "result" ? "完成" : `失败${code === undefined ? "" : `（${code}）`}`),
  references: (n) => `智能体使用了 ${n} 条参考资料。`,
  filesSoFar: (names) => `目前的文件：${names}`,
  agentAsks: (prompt) => `智能体问：${prompt}——请在聊天中回答。`,
  blocked: (message, code) => `受阻：${message}（${code}）`,
  couldNotFinish: "智能体未能完成此任务。",
  result: "结果",
  accepted: "你接受了这个结果。",
  rejected: (reason) => `你拒绝了这个结果${reason === undefined ? "。" : `：${reason}`}`,
  earlierAttempts: "之前的尝试",
  attemptLine: (n, status, reason, error) => `第 ${n} 次尝试：${status}${reason === undefined ? "" : `（${reason}）`}${error === undefined ? "" : `——${error}`}`,
  rejectReason: "拒绝的原因（会告诉智能体）",
  taskControls: "任务操作",
  exportEvidence: "导出证据",
  evidenceSaved: (through) => `第 1–${through} 个事件的证据包，已保存到此对话的文件中。`,
  digest: "摘要值",
  headline: (view) => {
    switch (view.kind) {
      case "files":
        return `已总结 ${view.files.length} 个文件，共 ${view.files.reduce((sum, f) => sum + f.words, 0)} 个词`;
      case "week": {
        const planned = view.days.reduce((sum, d) => sum + d.items.length, 0);
        const busy = view.days.filter((d) => d.items.length > 0).length;
        return `${planned} 项安排在 ${busy} 天${view.unscheduled.length === 0 ? "" : `，${view.unscheduled.length} 项未安排`}`;
      }
      case "note":
        return `笔记：${view.title}`;
      case "json":
        return "其他格式的结果";
    }
  },
  filesSummedUp: "已总结的文件",
  file: "文件",
  lines: "行数",
  words: "词数",
  beginsWith: "开头",
  free: "空闲",
  unscheduled: "未安排",
  day: (day) => ZH_DAYS[day] ?? day,
};

export function dashboardText(locale: string): DashboardText {
  return isSimplifiedChinese(locale) ? ZH : EN;
}

/** The words of the language the dashboard speaks now; the app's root provides them. */
export const TextContext = createContext<DashboardText>(EN);

export const useText = (): DashboardText => useContext(TextContext);

/** A task's status as the dashboard says it, with the decision on a completed one ("Done · accepted"). */
export function statusIn(text: DashboardText, task: { readonly status: AgentTaskStatus; readonly decision?: { readonly decision: "accepted" | "rejected" } | undefined }): string {
  const label = text.status[task.status];
  return task.status === "completed" && task.decision !== undefined ? text.decided(label, task.decision.decision) : label;
}
