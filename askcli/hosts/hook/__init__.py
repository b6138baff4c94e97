"""``askcli hook``: Claude Code's hooks, answered through the inbox or at a terminal.

:mod:`.command` (the hook's input, its decision, asking) and :mod:`.transcript` (Claude
Code's session transcript, read as it grows).
"""
