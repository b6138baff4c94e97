"""The hosts: what askcli is the person's side of (one folder each), and what they share."""
