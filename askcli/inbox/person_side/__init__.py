"""The person's side of the queue (``askcli inbox``): :mod:`.commands` (the inbox, ``inbox
list``, ``inbox answer``), :mod:`.queue_screens` (what the person sees of the queue),
:mod:`.holding` (which inbox holds a question, taking one over), :mod:`.watch` (the inbox's
eyes on the queue while the person types) and :mod:`.audit` (``askcli inbox log``)."""
