/**
 * What the demo agent says, in the language the person wrote in: Chinese when their message has Chinese
 * characters, English otherwise. One table per language with the same members, so a reply missing in
 * one language is a type error. Apps' names and results stay as the apps give them.
 */
import type { AppTargetName } from "./intents.js";
import { escapeMarkdown } from "./text.js";

export type ReplyLanguage = "en" | "zh-CN";

/** The language of `text` for the reply: Chinese characters (Han script) mean Chinese. */
export function replyLanguage(text: string): ReplyLanguage {
  return /\p{Script=Han}/u.test(text) ? "zh-CN" : "en";
}

export interface Replies {
  readonly language: ReplyLanguage;
  greet(suggestions: string): string;
  suggestions(): string;
  emptyMessage(suggestions: string): string;
  echo(quoted: string, suggestions: string): string;
  helpTitle: string;
  noTools: string;
  toolsHere(revision: number, list: string): string;
  noAnswerInTime: string;
  askName: { readonly prompt: string; readonly placeholder: string };
  skipIntroductions: string;
  niceToMeet(name: string): string;
  chooseWhat: string;
  choices: Readonly<Record<"whiteboard" | "draw-and-guess" | "pomodoro" | "voice", string>>;
  nothingForNow: string;
  confirm: { readonly prompt: string; readonly confirmLabel: string; readonly cancelLabel: string };
  confirmed: string;
  notConfirmed: string;
  /** The app as the reply names it ("the whiteboard"), and its name in Apps. */
  /** An app's name in the reply's language; a tool found by its name (`"tool"`) keeps the name it has. */
  label(app: AppTargetName | "tool", english: string): string;
  installName(app: AppTargetName | "tool", english: string): string;
  opening(label: string): string;
  ready(label: string, details: string): string;
  notInstalled(label: string, installName: string): string;
  /** A tool found by its declarations: the input card asking for one of its inputs. */
  askInput(toolTitle: string, input: string): string;
  /** The person's answer is not a value of the input's type (a number was asked for). */
  notAValue(input: string): string;
  /** The person dismissed the input card: the tool is not called. */
  leftAlone(toolTitle: string): string;
  /** A required input of a shape a card cannot ask for (an object, a list) and no default. */
  cannotFill(toolTitle: string, inputs: string): string;
}

const ZH_LABELS: Readonly<Record<AppTargetName, string>> = { whiteboard: "白板", "draw-and-guess": "你画我猜游戏", pomodoro: "番茄钟", voice: "录音机", "task-dashboard": "任务面板" };
const ZH_NAMES: Readonly<Record<AppTargetName, string>> = { whiteboard: "白板", "draw-and-guess": "你画我猜", pomodoro: "番茄钟", voice: "语音笔记", "task-dashboard": "任务面板" };

const EN: Replies = {
  language: "en",
  greet: (suggestions) => `Hello! 👋 I'm the **LineUp demo agent**.\n\n${suggestions}`,
  suggestions: () =>
    [
      "Try one of these:",
      "",
      "- *open the whiteboard*, then *draw a diagram: Plan → Build → Ship*, *what's on the whiteboard?*, *export the whiteboard*",
      "- *let's play draw and guess*",
      "- *start a 25 minute pomodoro*",
      "- *record a voice note*",
      "- *open the task dashboard*, to hand me work from its forms",
      "- *ask me something*, *let me choose*, *confirm*",
    ].join("\n"),
  emptyMessage: (suggestions) => `I got your message (it had no text).\n\n${suggestions}`,
  echo: (quoted, suggestions) => `You said:\n\n${quoted}\n\nI'm a demo agent without a language model, so I keep it simple. ${suggestions}`,
  helpTitle: "## What I can do",
  noTools: "No app has offered me any tools in this conversation yet.",
  toolsHere: (revision, list) => `Tools I can use here (inventory revision ${revision}):\n\n${list}`,
  noAnswerInTime: "I didn't get an answer in time, so I'll leave it there. Ask me again whenever you like.",
  askName: { prompt: "What should I call you?", placeholder: "Your name" },
  skipIntroductions: "No problem, we can skip the introductions.",
  niceToMeet: (name) => `Nice to meet you, **${escapeMarkdown(name)}**! 🙂`,
  chooseWhat: "What would you like to do?",
  choices: { whiteboard: "Open the whiteboard", "draw-and-guess": "Play draw-and-guess", pomodoro: "Start a pomodoro", voice: "Record a voice note" },
  nothingForNow: "Alright, nothing for now.",
  confirm: { prompt: "Shall I go ahead?", confirmLabel: "Yes, go ahead", cancelLabel: "No" },
  confirmed: "Confirmed ✅ — going ahead.",
  notConfirmed: "OK, I won't. Nothing was changed.",
  label: (_app, english) => english,
  installName: (_app, english) => english,
  opening: (label) => `Opening the ${label}`,
  ready: (label, details) => `Done — the **${label}** is ready${details === "" ? "." : `:${details}`}`,
  askInput: (toolTitle, input) => `${toolTitle}: ${input}?`,
  notAValue: (input) => `That is not a number, so I did not go ahead. Ask me again and give a number for “${escapeMarkdown(input)}”.`,
  leftAlone: (toolTitle) => `OK — I left **${escapeMarkdown(toolTitle)}** alone.`,
  cannotFill: (toolTitle, inputs) => `**${escapeMarkdown(toolTitle)}** needs ${escapeMarkdown(inputs)}, which I cannot ask you for in a card, so I did not call it.`,
  notInstalled: (label, installName) =>
    [
      `I can't open the **${label}** here: the **${installName}** app isn't installed (or isn't available) in this conversation.`,
      "",
      `To install it, open **Apps** (the App Registry) in LineUp, choose **${installName}** and install it — then ask me again.`,
    ].join("\n"),
};

const ZH: Replies = {
  language: "zh-CN",
  greet: (suggestions) => `你好！👋 我是 **LineUp 演示智能体**。\n\n${suggestions}`,
  suggestions: () =>
    [
      "试试这些：",
      "",
      "- *打开白板*，然后 *画流程图：计划 → 构建 → 发布*、*白板上有什么？*、*导出白板*",
      "- *我们来玩你画我猜*",
      "- *开始一个 25 分钟的番茄钟*",
      "- *录一段语音*",
      "- *打开任务面板*，用表单把工作交给我",
      "- *问我*、*选择*、*确认*",
    ].join("\n"),
  emptyMessage: (suggestions) => `收到你的消息了（里面没有文字）。\n\n${suggestions}`,
  echo: (quoted, suggestions) => `你说：\n\n${quoted}\n\n我是没有语言模型的演示智能体，所以回答得很简单。${suggestions}`,
  helpTitle: "## 我能做什么",
  noTools: "在这个对话里，还没有应用向我提供工具。",
  toolsHere: (revision, list) => `我在这里可以使用的工具（清单版本 ${revision}）：\n\n${list}`,
  noAnswerInTime: "没有及时收到你的回答，就先到这里。随时可以再问我。",
  askName: { prompt: "我该怎么称呼你？", placeholder: "你的名字" },
  skipIntroductions: "没关系，我们可以跳过自我介绍。",
  niceToMeet: (name) => `很高兴认识你，**${escapeMarkdown(name)}**！🙂`,
  chooseWhat: "你想做什么？",
  choices: { whiteboard: "打开白板", "draw-and-guess": "玩你画我猜", pomodoro: "开始一个番茄钟", voice: "录一段语音" },
  nothingForNow: "好的，先不做。",
  confirm: { prompt: "要我继续吗？", confirmLabel: "好，继续", cancelLabel: "不要" },
  confirmed: "已确认 ✅——继续进行。",
  notConfirmed: "好的，我不做了。什么都没有改变。",
  label: (app, english) => (app === "tool" ? english : ZH_LABELS[app]),
  installName: (app, english) => (app === "tool" ? english : ZH_NAMES[app]),
  opening: (label) => `正在打开${label}`,
  ready: (label, details) => `完成——**${label}**已准备好${details === "" ? "。" : `：${details}`}`,
  askInput: (toolTitle, input) => `${toolTitle}：${input}？`,
  notAValue: (input) => `这不是一个数字，所以我没有继续。请再问我一次，并为“${escapeMarkdown(input)}”给出一个数字。`,
  leftAlone: (toolTitle) => `好的——我没有使用**${escapeMarkdown(toolTitle)}**。`,
  cannotFill: (toolTitle, inputs) => `**${escapeMarkdown(toolTitle)}**需要 ${escapeMarkdown(inputs)}，我无法用卡片问你，所以没有调用它。`,
  notInstalled: (label, installName) =>
    [
      `我在这里打不开**${label}**：此对话中没有安装（或无法使用）**${installName}**应用。`,
      "",
      `要安装它，请在 LineUp 中打开**应用**，选择**${installName}**并安装——然后再问我一次。`,
    ].join("\n"),
};

/** The replies for a turn whose person wrote `text`. */
export function repliesFor(text: string): Replies {
  return replyLanguage(text) === "zh-CN" ? ZH : EN;
}
