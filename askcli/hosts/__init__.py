"""Hosts: the programs askcli serves as the person's side of, each in its own protocol
(``askcli mcp``: an MCP server; ``askcli hook``: Claude Code's hooks)."""
