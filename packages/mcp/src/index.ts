/**
 * @hermes-memory/mcp — expose Hermes memory to any MCP client: the active providers' tools as MCP
 * tools and the frozen memory snapshot as a resource, over stdio or streamable HTTP on loopback.
 */
export {
  createMemoryMcpServer,
  type McpMemoryManager,
  type MemoryMcpServerOptions,
  SNAPSHOT_URI,
  SYSTEM_PROMPT_URI,
} from './server';
export { type HttpMcpHandle, serveHttp, serveStdio } from './transports';
