"""The real agents from npm (make test installs them into .cache/): Claude Code, Gemini CLI,
claude-agent-acp, OpenCode, codex-acp, Codex CLI and the MCP conformance suite."""
