"""How AskUserQuestion's results are worded (``--wording``): :mod:`.base` (the
:class:`~.base.Wording` interface, Claude Code 2.1.88's wording), :mod:`.texts` (the current
Claude Code release's texts), :mod:`.current` (the wording that uses them) and
:mod:`.registry` (each wording's name -> its object)."""
