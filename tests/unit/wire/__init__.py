"""The wire layer: documents, envelopes, result texts, wordings, definitions, dialects."""
