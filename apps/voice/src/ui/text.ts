/**
 * Voice Notes' words in the language LineUp tells it (the Host Bridge snapshot's `locale`): Simplified
 * Chinese for a Chinese locale, English otherwise. Both tables have the same members.
 */
import { isSimplifiedChinese } from "@lineup/surface-sdk";

export interface VoiceText {
  readonly title: string;
  readonly record: string;
  readonly standaloneHint: string;
  readonly request: string;
  readonly asksToRecord: string;
  readonly asks: string;
  limit(duration: string): string;
  readonly recordNow: string;
  readonly notNow: string;
  moreWaiting(count: number): string;
  readonly recording: string;
  readonly recordingHint: string;
  readonly savingShort: string;
  readonly saving: string;
  readonly notes: string;
  readonly notesHeading: string;
  readonly noNotes: string;
  noteLabel(time: string): string;
  play(label: string): string;
  stop(label: string): string;
  couldNotPlay(reason: string): string;
  readonly pipAsks: string;
  count(notes: number): string;
  latest(duration: string, time: string): string;
}

const EN: VoiceText = {
  title: "Voice Notes",
  record: "Record a note",
  standaloneHint: "Open Voice Notes in LineUp to record.",
  request: "The agent's request",
  asksToRecord: "The agent asks you to record a voice note.",
  asks: "The agent asks: ",
  limit: (duration) => `Up to ${duration}. LineUp asks before it uses the microphone, and you can stop or discard the recording.`,
  recordNow: "Record",
  notNow: "Not now",
  moreWaiting: (count) => `${count} more waiting`,
  recording: "Recording…",
  recordingHint: " Recording… Stop or discard it in LineUp's bar at the top.",
  savingShort: "Saving…",
  saving: "Saving the recording…",
  notes: "Notes",
  notesHeading: "Notes in this conversation",
  noNotes: "No notes yet.",
  noteLabel: (time) => `Voice note, ${time}`,
  play: (label) => `Play ${label}`,
  stop: (label) => `Stop ${label}`,
  couldNotPlay: (reason) => `Could not play the note: ${reason}`,
  pipAsks: "The agent asks for a voice note",
  count: (notes) => `${notes} ${notes === 1 ? "note" : "notes"}`,
  latest: (duration, time) => `Latest: ${duration} · ${time}`,
};

const ZH: VoiceText = {
  title: "语音笔记",
  record: "录一段笔记",
  standaloneHint: "请在 LineUp 中打开语音笔记来录音。",
  request: "智能体的请求",
  asksToRecord: "智能体请你录一段语音笔记。",
  asks: "智能体请求：",
  limit: (duration) => `最长 ${duration}。LineUp 使用麦克风前会先询问你，你也可以停止或放弃录音。`,
  recordNow: "录音",
  notNow: "暂不",
  moreWaiting: (count) => `还有 ${count} 个请求在等待`,
  recording: "正在录音…",
  recordingHint: " 正在录音…可在 LineUp 顶部的录音栏中停止或放弃。",
  savingShort: "正在保存…",
  saving: "正在保存录音…",
  notes: "笔记",
  notesHeading: "此对话中的笔记",
  noNotes: "还没有笔记。",
  noteLabel: (time) => `语音笔记，${time}`,
  play: (label) => `播放${label}`,
  stop: (label) => `停止${label}`,
  couldNotPlay: (reason) => `无法播放这条笔记：${reason}`,
  pipAsks: "智能体请你录一段语音笔记",
  count: (notes) => `${notes} 条笔记`,
  latest: (duration, time) => `最新：${duration} · ${time}`,
};

export function voiceText(locale: string): VoiceText {
  return isSimplifiedChinese(locale) ? ZH : EN;
}
