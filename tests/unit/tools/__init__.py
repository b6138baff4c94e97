"""The tools layer: the AskUserQuestion REPL, the permission prompt, todos, the journal."""
