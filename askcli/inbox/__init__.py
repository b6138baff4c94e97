"""One inbox for every agent: a queue of questions (:mod:`.store`), the askers' side
(:mod:`.asker_side`, with who asks: :mod:`.asker_identity`) and the person's
(:mod:`.person_side`, ``askcli inbox``); :mod:`.location` (what ``$ASKCLI_INBOX`` names),
:mod:`.routing` (who a question is for) and :mod:`.roles` (a team inbox's roles)."""
