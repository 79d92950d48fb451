/**
 * TEST-ONLY seam (issue 22 §3): the web host runs no `mcp-stdio` back-end of its own yet (that is the host's local
 * back-end service, still to come). Until then a browser test that needs one puts runner factories on
 * `globalThis.__lineupTestBackendRunners` from an init script, before the host's code runs, and the page's Runtime
 * uses them beside its own (the test's runner relays to a real MCP server it runs in Node). A page nobody scripted
 * has none; the host's own runners are never replaced.
 */
import type { BackendRunners } from "@lineup/runtime";

const TEST_PROTOCOLS = ["mcp-stdio"] as const;

/** The runner factories a test put in place, for the protocols the host does not run itself. */
export function testBackendRunners(): BackendRunners {
  const offered = (globalThis as { __lineupTestBackendRunners?: BackendRunners }).__lineupTestBackendRunners;
  if (offered === undefined) return {};
  const runners: BackendRunners = {};
  for (const protocol of TEST_PROTOCOLS) if (typeof offered[protocol] === "function") runners[protocol] = offered[protocol];
  return runners;
}
