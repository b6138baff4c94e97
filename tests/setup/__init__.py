"""askcli setup and askcli doctor: the config files each agent reads."""
