# C declarations of YuanjiangState's fields for the compiled kernel (issue 18; the .py stays the
# reference). Python objects, as in replay/engine.pxd: what this saves is the attribute lookup.
# Keep in step with YuanjiangState.C_FIELDS.

from replay.engine cimport GameState, Option, Window

cdef class YuanjiangState(GameState):
    cdef public object chi_closed, menzi_closed, peng_closed, peng_own, intact, chi_card, locked, after_wai
    cdef public object dealer_discarded, piao, peng_on_flip, peng_own_discard, order, win, shapes, ting
