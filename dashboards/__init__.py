"""paipu dashboards: the Streamlit app (``app.py`` + ``screens/``) and ``paipu dashboard`` /
``paipu audit`` (``cli.py``).

Reading order: ``labels`` (words and cards) → ``data`` (queries over the warehouse) → ``audit``
(one game's steps and result diff) → ``ui`` (Streamlit caching and widgets) → ``screens/``.
"""
