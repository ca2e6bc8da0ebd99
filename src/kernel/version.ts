/** Versions a client can check: the program, the MCP protocol it speaks, the tool schema generation. */
export const CAIRN_VERSION = "0.1.0";
export const MCP_PROTOCOL_VERSION = "2025-11-25";
/** The only `schema_version` every published tool input accepts today. */
export const TOOL_SCHEMA_VERSION = 1;
