/**
 * The check an app's tool call meets before it reaches the app's page: the Runtime validates the call's
 * arguments against the installed descriptor's `input_schema` (`createToolSchemaValidator`, the validator
 * the Runtime's tool registry builds). Tests of an app's tools ask it what the Runtime would refuse.
 */
import { createToolSchemaValidator, type JsonValue, type Result } from "@lineup/protocol";
import { toolDescriptors, type AgentTools } from "@lineup/surface-sdk";

export function checkToolArguments(tools: AgentTools, method: string, args: unknown): Result<JsonValue> {
  const descriptor = toolDescriptors(tools).find((d) => d.method === method);
  if (descriptor === undefined) throw new Error(`no tool ${method}`);
  const validator = createToolSchemaValidator(descriptor.input_schema, { code: "invalid_arguments" });
  if (!validator.ok) throw new Error(`${method}: ${validator.error.message}`);
  return validator.value(args);
}
