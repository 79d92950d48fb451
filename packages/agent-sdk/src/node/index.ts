/** Node adapters of @lineup/agent-sdk: the WebSocket transport and a `connectAgent` that defaults to it. */
import { connectAgent as connectWith, type AgentClient, type ConnectAgentOptions } from "../agent-client.js";
import { enableOpenTelemetry } from "@lineup/protocol/opentelemetry";
import { nodeWebSocketTransport } from "./ws-transport.js";

export * from "./ws-transport.js";

/**
 * `connectAgent` with the Node WebSocket transport unless another is given. Its requests are OpenTelemetry spans
 * (no-ops until the program registers a tracer provider).
 */
export function connectAgent(options: ConnectAgentOptions): Promise<AgentClient> {
  enableOpenTelemetry();
  return connectWith(options.transport === undefined ? { ...options, transport: nodeWebSocketTransport() } : options);
}
export * from "./cli.js";
