"""The tool input schemas and their validation."""
