import { capabilityCompleted, capabilityRefused, type CapabilityName, type CapabilityResult } from "@lineup/protocol";
import type { CapabilityConfirmation, CapabilityPrompt, HostInvocation, HostProvider, SystemPermission } from "../../src/index.js";

/** A host provider that records what it is asked and answers from a script. */
export class FakeHost implements HostProvider {
  readonly prompts: CapabilityPrompt[] = [];
  readonly invocations: HostInvocation[] = [];
  readonly systemPrompts: CapabilityName[] = [];
  /** The user's answer to the confirmation; `hang` waits until the test calls `answerPrompt`. */
  answer: CapabilityConfirmation | "hang" = "allow";
  private waitingAnswers: ((answer: CapabilityConfirmation) => void)[] = [];
  /** The host call: completes with the capability's name, or never (until aborted). */
  hangInvoke = false;
  system: SystemPermission = "not_applicable";
  systemAnswer: "granted" | "denied" = "granted";

  constructor(readonly supported: readonly CapabilityName[]) {}

  supports(capability: CapabilityName): boolean {
    return this.supported.includes(capability);
  }
  systemPermission(): SystemPermission {
    return this.system;
  }
  requestSystemPermission(capability: CapabilityName): Promise<"granted" | "denied"> {
    this.systemPrompts.push(capability);
    this.system = this.systemAnswer;
    return Promise.resolve(this.systemAnswer);
  }
  confirm(prompt: CapabilityPrompt): Promise<CapabilityConfirmation> {
    this.prompts.push(prompt);
    return this.answer === "hang" ? new Promise((resolve) => this.waitingAnswers.push(resolve)) : Promise.resolve(this.answer);
  }
  /** The person answers the confirmations shown so far. */
  answerPrompt(answer: CapabilityConfirmation): void {
    for (const resolve of this.waitingAnswers.splice(0)) resolve(answer);
  }
  invoke(invocation: HostInvocation): Promise<CapabilityResult> {
    this.invocations.push(invocation);
    if (!this.hangInvoke) return Promise.resolve(capabilityCompleted({ done: invocation.capability }));
    return new Promise((resolve) => invocation.signal.addEventListener("abort", () => resolve(capabilityRefused("cancelled_by_user", "stopped"))));
  }
}
