"""The schema layer: the tool inputs, their rules and limits, real calls of the corpus."""
