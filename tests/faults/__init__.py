"""The fault suite (issue 28): askcli's team inbox on PostgreSQL across machines of their own
(network namespaces), under server restarts, partitions, delay, loss, stopped and killed
processes and lost commit acknowledgements. ``make faults`` runs it (``pytest tests/faults``);
``make test`` leaves it out (tests/conftest.py)."""
