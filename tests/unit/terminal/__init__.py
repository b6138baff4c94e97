"""The terminal layer: rendering, layout at any width, the run's options."""
