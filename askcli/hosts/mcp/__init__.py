"""``askcli mcp``: an MCP server whose tools are answered through the inbox's queue.

:mod:`.server` (the tools, the SDK's server on stdio or HTTP) and :mod:`.shutdown` (how the
server ends when its client goes away or a signal stops it); the JSON-RPC errors for messages
the SDK cannot read are :mod:`askcli.hosts.unreadable`.
"""
