"""paipu ingest."""
