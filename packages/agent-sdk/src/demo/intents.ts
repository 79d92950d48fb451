/**
 * What the demo agent understands: a few keyword rules, in English and Chinese, checked in a
 * fixed order. No model, no network: the same text always gives the same intent.
 */

/** What the agent does on the whiteboard beyond opening it (`demo/whiteboard.ts`). */
export type BoardAction = "draw" | "read" | "export";

export type AppTargetName = "whiteboard" | "draw-and-guess" | "pomodoro" | "voice" | "task-dashboard";

export type DemoIntent =
  | { readonly kind: "open_app"; readonly target: AppTargetName }
  | { readonly kind: "board"; readonly action: BoardAction }
  | { readonly kind: "ask" }
  | { readonly kind: "choose" }
  | { readonly kind: "confirm" }
  | { readonly kind: "help" }
  | { readonly kind: "greet" }
  | { readonly kind: "guess_drawing" }
  /** "use `clock.get_time`": call that tool of the inventory, whatever app offers it (an MCP server's too), with no arguments. */
  | { readonly kind: "use_tool"; readonly method: string }
  | { readonly kind: "echo" };

const RULES: readonly { readonly test: RegExp; readonly intent: DemoIntent }[] = [
  // Draw-and-guess before the whiteboard: "draw" alone is not enough for either.
  { test: /draw[\s-]*(?:and|&|n)[\s-]*guess|pictionary|你画我猜|guess(?:ing)? game/, intent: { kind: "open_app", target: "draw-and-guess" } },
  // Work on the whiteboard before opening it: "export the whiteboard" names it too.
  { test: /\bexport\b|导出|\bsave\b.*\b(?:png|image|picture)\b/, intent: { kind: "board", action: "export" } },
  { test: /what(?:'s|’s|\s+is)\s+on\s+(?:the\s+)?(?:white\s*)?board|\b(?:read|describe|summari[sz]e)\b.*board\b|白板上(?:有什么|画了什么)/, intent: { kind: "board", action: "read" } },
  { test: /(?:\b(?:draw|sketch)\b|画).*(?:\b(?:diagram|flow\s*chart|flowchart|flow|chart|steps|boxes)\b|->|→|=>|流程图|示意图)/, intent: { kind: "board", action: "draw" } },
  { test: /white\s*board|白板|sketch\s*pad/, intent: { kind: "open_app", target: "whiteboard" } },
  { test: /pomodoro|focus timer|番茄|\btimer\b|计时/, intent: { kind: "open_app", target: "pomodoro" } },
  { test: /task\s*(?:dashboard|list)|\bdashboard\b|任务(?:面板|看板|列表)/, intent: { kind: "open_app", target: "task-dashboard" } },
  { test: /voice\s*(?:note|memo|recording)|record(?:ing)?\b.*\b(?:voice|note|memo|audio)|\brecord\b|录音|语音/, intent: { kind: "open_app", target: "voice" } },
  // "Done" in a draw-and-guess round: the person finished drawing and the agent should guess.
  { test: /^\s*(?:ok(?:ay)?\W*)?(?:i[’']?m\s+|i am\s+|all\s+)?(?:done|finished)\b|^\s*guess\b|can you guess|your guess|画好了|画完了|猜吧|你猜/, intent: { kind: "guess_drawing" } },
  { test: /\bchoose\b|\bchoice\b|\bpick\b|选择|选一个/, intent: { kind: "choose" } },
  { test: /\bconfirm\b|确认/, intent: { kind: "confirm" } },
  { test: /ask me|\binput\b|问我/, intent: { kind: "ask" } },
  { test: /^\s*(?:help|\?)\s*$|what can you do|帮助|你能做什么/, intent: { kind: "help" } },
  { test: /^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening)|你好|您好)\b/, intent: { kind: "greet" } },
];

/** "use X", "call X", "run X" (X a tool's method, back-quoted or not), or "用 X"/"调用 X". */
const USE_TOOL = /(?:^|\s)(?:use|call|run|用|调用)\s*`?([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+)`?/;

export function parseIntent(text: string): DemoIntent {
  const lower = text.toLowerCase();
  const named = USE_TOOL.exec(lower);
  if (named !== null) return { kind: "use_tool", method: named[1]! };
  for (const rule of RULES) if (rule.test.test(lower)) return rule.intent;
  return { kind: "echo" };
}
