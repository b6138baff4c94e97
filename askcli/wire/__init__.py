"""Wire formats: documents, envelopes, results, tool definitions, each agent's dialect."""
