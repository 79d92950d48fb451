// Node adapters. Importing this entry loads the native better-sqlite3 module and ws.
export { openSqliteStore, type SqliteStoreOptions, type SqliteRuntimeStore, type SqliteThread } from "./sqlite-store.js";
export { createWsTransport, type WsTransportOptions } from "./ws-transport.js";
export { createNodeRuntime, type NodeRuntime, type NodeRuntimeOptions } from "./create-node-runtime.js";
export { readDirectoryFiles, writeBundleFile, keygenToFiles, packDirectory, PACK_PROGRESS_MIN_BYTES, signFile, verifyFile, readTrustedKeys, parsePrivateKey, PRIVATE_KEY_FILE, PUBLIC_KEY_FILE, type KeygenFiles, type PackedFile } from "./bundle-files.js";
export { createSqliteAppStorageHost } from "./app-storage-sqlite.js";
export { createNodeWasmRunner } from "./wasm-backend.js";
export { createStdioRunner, fileSystemViewAvailable, networkNamespaceAvailable } from "./stdio-backend.js";
export { createMcpStdioRunner, MCP_FLOOD_BURST, MCP_FLOOD_PER_SECOND, type McpStdioRunnerOptions } from "./mcp-backend.js";
// The MCP SDK's client (it compiles validators at run time, which the web host's CSP forbids): Node only.
export { connectMcp, describeMcpServer, mcpErrorToLineUp, MCP_CLIENT_INFO, type McpConnection, type McpConnectOptions, type McpServerDescription } from "../backends/mcp-client.js";
export { createMcpHttpRunner } from "../backends/mcp-http.js";
export { LOCAL_BACKENDS_PATH, LOCAL_BACKENDS_SECRET_PREFIX } from "../backends/local-service-wire.js";
export { createLocalBackendService, nodeLocalRunners, type LocalBackendService, type LocalBackendServiceOptions } from "./local-backend-service.js";
