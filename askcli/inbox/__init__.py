"""One inbox for every agent: a queue of questions (:mod:`.store`), the askers' side
(:mod:`.asking`) and the person's (``askcli inbox``)."""
