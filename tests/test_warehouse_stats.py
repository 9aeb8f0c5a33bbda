"""A DuckLake fault the warehouse works around: after one commit writes a file whose column is all
NULL beside one with values, the next commit can leave the table's min/max those of its own files
only, and a plan trusting them misreads the values (ingest.warehouse.attach)."""

from __future__ import annotations

import duckdb

from ingest.views import connect
from ingest.warehouse import Warehouse, attach, catalog_of


def test_values_read_back_whatever_the_catalogs_statistics_say(tmp_path):
    root = tmp_path / "wh"
    with Warehouse(root):  # an empty warehouse: its catalog and tables
        pass
    con = duckdb.connect()
    attach(con, root, catalog_of(root), name="w")
    con.execute("CREATE TABLE w.t (k VARCHAR, v BIGINT)")
    con.execute("BEGIN")
    con.execute("INSERT INTO w.t VALUES ('a', NULL)")
    con.execute("INSERT INTO w.t VALUES ('b', 1), ('c', 2)")
    con.execute("COMMIT")
    con.execute("INSERT INTO w.t VALUES ('d', 2)")
    con.close()
    fresh = duckdb.connect()
    attach(fresh, root, catalog_of(root), read_only=True, name="w")
    assert fresh.sql("SELECT k, v FROM w.t ORDER BY k").fetchall() == [("a", None), ("b", 1), ("c", 2), ("d", 2)]
    assert fresh.sql("SELECT count(*) FROM w.t WHERE v = 1").fetchall() == [(1,)]
    assert fresh.sql("SELECT min(v), max(v) FROM w.t").fetchall() == [(1, 2)]
    fresh.close()
    reader = connect(root)  # the warehouse's own read connection attaches the same way
    assert reader.sql("SELECT count(*) FROM games").fetchall() == [(0,)]
    reader.close()
