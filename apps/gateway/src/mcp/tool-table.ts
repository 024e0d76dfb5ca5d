import type { McpTool } from './mcp-tool';
import { EDIT_TOOL, FORGET_TOOL, GLOB_TOOL, GREP_TOOL, LIST_TOOL, TREE_TOOL, WRITE_TOOL } from './tools-fs';
import { ADD_RESOURCE_TOOL, CANCEL_WATCH_TOOL, HEALTH_TOOL, LIST_WATCHES_TOOL, REMEMBER_TOOL } from './tools-misc';
import { FIND_TOOL, READ_TOOL, RECALL_TOOL, SEARCH_TOOL } from './tools-retrieval';

/**
 * Every MCP tool, in the order `tools/list` shows them: the reference's fifteen, then the legacy
 * `recall` kept for older clients (docs/fs-and-mcp.md, "MCP tools").
 */
export const MCP_TOOLS: readonly McpTool[] = [
  FIND_TOOL,
  SEARCH_TOOL,
  READ_TOOL,
  LIST_TOOL,
  TREE_TOOL,
  REMEMBER_TOOL,
  WRITE_TOOL,
  EDIT_TOOL,
  ADD_RESOURCE_TOOL,
  LIST_WATCHES_TOOL,
  CANCEL_WATCH_TOOL,
  GREP_TOOL,
  GLOB_TOOL,
  FORGET_TOOL,
  HEALTH_TOOL,
  RECALL_TOOL,
];
