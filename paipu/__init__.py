"""The ``paipu`` command: the composition root over replay → ingest → analytics → dashboards."""
