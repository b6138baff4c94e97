"""The installed askcli through pipes: its commands, streams, exit statuses and signals."""
