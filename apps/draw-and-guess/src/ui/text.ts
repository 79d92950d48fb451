/**
 * Draw and Guess's words in the language LineUp tells it (the Host Bridge snapshot's `locale`, and its
 * changes): Simplified Chinese for a Chinese locale, English otherwise. The secret words stay the game's.
 */
import { isSimplifiedChinese } from "@lineup/surface-sdk";

export interface GameText {
  readonly noRound: string;
  readonly standaloneHint: string;
  readonly idleHint: string;
  readonly startRound: string;
  readonly canvasFull: string;
  round(number: number, category: string): string;
  readonly draw: string;
  letters(count: number): string;
  readonly score: string;
  guessed(won: number, played: number): string;
  readonly anotherRound: string;
  drawing(strokes: number): string;
  readonly guesses: string;
  readonly right: string;
  readonly wrong: string;
  readonly done: string;
  readonly clear: string;
  readonly newWord: string;
  waiting(left: number): string;
  tryIn(clock: string): string;
  readonly timesUp: string;
  readonly guessedIt: string;
  readonly outOfGuesses: string;
}

const EN: GameText = {
  noRound: "No round yet",
  standaloneHint: "Draw and Guess is played with an agent in LineUp. You can still try drawing here.",
  idleHint: "Ask the agent in chat, for example “let's play draw and guess”.",
  startRound: "Start a round",
  canvasFull: "The canvas is full — press Clear, or I'm done drawing.",
  round: (number, category) => `Round ${number} · ${category}`,
  draw: "Draw: ",
  letters: (count) => `(${count} letters)`,
  score: "Score",
  guessed: (won, played) => `Guessed ${won} of ${played}`,
  anotherRound: "Ask the agent for another round, or press New word.",
  drawing: (strokes) => `Drawing: ${strokes} ${strokes === 1 ? "stroke" : "strokes"}`,
  guesses: "The agent's guesses",
  right: "right",
  wrong: "wrong",
  done: "I'm done drawing",
  clear: "Clear",
  newWord: "New word",
  waiting: (left) => `Waiting for the agent's guess — ${left} ${left === 1 ? "guess" : "guesses"} left.`,
  tryIn: (clock) => `Try to draw it in ${clock}`,
  timesUp: "Time's up — tell the agent you're done.",
  guessedIt: "Guessed it: ",
  outOfGuesses: "Out of guesses — the word was ",
};

const ZH: GameText = {
  noRound: "还没有开始",
  standaloneHint: "你画我猜需要在 LineUp 中和智能体一起玩。你仍然可以在这里试着画画。",
  idleHint: "在聊天中请智能体开始，例如“我们来玩你画我猜”。",
  startRound: "开始一轮",
  canvasFull: "画布已满——请按“清除”，或“我画好了”。",
  round: (number, category) => `第 ${number} 轮 · ${category}`,
  draw: "请画：",
  letters: (count) => `（${count} 个字母）`,
  score: "得分",
  guessed: (won, played) => `${played} 轮中猜对 ${won} 轮`,
  anotherRound: "请智能体再来一轮，或按“换个词”。",
  drawing: (strokes) => `画作：${strokes} 笔`,
  guesses: "智能体的猜测",
  right: "正确",
  wrong: "错误",
  done: "我画好了",
  clear: "清除",
  newWord: "换个词",
  waiting: (left) => `等待智能体猜测——还剩 ${left} 次机会。`,
  tryIn: (clock) => `试着在 ${clock} 内画完`,
  timesUp: "时间到——告诉智能体你画好了。",
  guessedIt: "猜对了：",
  outOfGuesses: "机会用完了——答案是 ",
};

export function gameText(locale: string): GameText {
  return isSimplifiedChinese(locale) ? ZH : EN;
}
