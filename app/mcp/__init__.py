"""The user's own tools: MCP servers named in `mcp.json` beside the config file, started when a conversation
first needs them, their tools declared to the model and called for it (the `mcp` SDK is imported only in
this package)."""
