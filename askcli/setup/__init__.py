"""What hosts nothing: ``askcli setup`` (:mod:`.configs`, askcli written into an agent's
config file) and ``askcli doctor`` (:mod:`.doctor`, where askcli is set up)."""
