/**
 * @hermes-memory/mcp — expose Hermes memory to any MCP client: the active providers' tools as MCP
 * tools and the frozen memory snapshot as a resource, over stdio or streamable HTTP on loopback
 * (bearer token, Origin and Host checks, body cap, fair bounded work, expiring sessions).
 */
export {
  createMemoryMcpServer,
  type McpMemoryManager,
  type MemoryMcpServerOptions,
  SNAPSHOT_URI,
  SYSTEM_PROMPT_URI,
} from './server';
export {
  HTTP_DEFAULTS,
  type HttpMcpHandle,
  type HttpMcpOptions,
  serveHttp,
} from './http/serve-http';
export { serveStdio } from './stdio';
