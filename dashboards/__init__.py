"""paipu dashboards."""
