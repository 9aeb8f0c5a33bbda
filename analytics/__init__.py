"""paipu analytics."""
