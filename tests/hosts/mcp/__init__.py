"""askcli mcp: the MCP server, against the official MCP SDK's own client."""
