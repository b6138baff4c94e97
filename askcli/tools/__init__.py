"""The tools askcli serves: the registry, AskUserQuestion's REPL, the permission prompt,
TodoWrite, the journal."""
