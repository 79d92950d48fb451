/**
 * The pomodoro's words in the language LineUp tells it (the Host Bridge snapshot's `locale`, and its
 * changes): Simplified Chinese for a Chinese locale, English otherwise. Both tables have the same members.
 */
import { isSimplifiedChinese } from "@lineup/surface-sdk";

export interface PomodoroText {
  readonly idleTitle: string;
  readonly standaloneHint: string;
  readonly idleHint: string;
  endsAt(time: string): string;
  readonly timesUp: string;
  stoppedWithLeft(clock: string): string;
  left(clock: string): string;
  readonly stop: string;
  readonly stopping: string;
  sessionHint(minutes: number): string;
  couldNotStop(reason: string): string;
}

const EN: PomodoroText = {
  idleTitle: "No focus session yet",
  standaloneHint: "Open the Pomodoro in LineUp to use it.",
  idleHint: "Ask the agent in chat, for example “start a 25 minute pomodoro for the report”.",
  endsAt: (time) => `Ends at ${time}`,
  timesUp: "Time's up — nice focus!",
  stoppedWithLeft: (clock) => `Stopped with ${clock} left`,
  left: (clock) => `${clock} left`,
  stop: "Stop",
  stopping: "Stopping…",
  sessionHint: (minutes) => `${minutes}-minute session. Ask the agent for another when you are ready.`,
  couldNotStop: (reason) => `Could not stop the timer: ${reason}`,
};

const ZH: PomodoroText = {
  idleTitle: "还没有专注时段",
  standaloneHint: "请在 LineUp 中打开番茄钟使用。",
  idleHint: "在聊天中请智能体开始，例如“为报告开始一个 25 分钟的番茄钟”。",
  endsAt: (time) => `${time} 结束`,
  timesUp: "时间到——专注得不错！",
  stoppedWithLeft: (clock) => `已停止，还剩 ${clock}`,
  left: (clock) => `还剩 ${clock}`,
  stop: "停止",
  stopping: "正在停止…",
  sessionHint: (minutes) => `${minutes} 分钟的时段。准备好后再请智能体开始下一个。`,
  couldNotStop: (reason) => `无法停止计时器：${reason}`,
};

export function pomodoroText(locale: string): PomodoroText {
  return isSimplifiedChinese(locale) ? ZH : EN;
}
