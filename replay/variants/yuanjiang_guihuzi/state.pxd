# C declarations of YuanjiangState's fields for the compiled kernel (the .py stays the
# reference). Python objects, as in replay/engine.pxd: what this saves is the attribute lookup.
# tests/test_kernel_fields.py holds these fields to YuanjiangState.C_FIELDS; the cpdef methods keep their .py signatures.

from replay.engine cimport GameState, Option, Window

cdef class YuanjiangState(GameState):
    cdef public object chi_closed, menzi_closed, peng_closed, peng_own, intact, chi_card, locked, after_wai
    cdef public object dealer_discarded, piao, peng_on_flip, peng_own_discard, order, win, shapes, ting
    # the state's own questions, asked from its compiled windows: C calls, not Python method lookups
    cpdef list free(self, seat)
    cpdef object meld_of(self, seat, card, kind)
    cpdef object shape(self, seat)
    cpdef object baoting(self, seat)
    cpdef frozenset eaten(self, seat)
    cpdef object evaluate(self, seat, card, wmode, tianhu=*)
    cpdef object can_win(self, seat, card, wmode, tianhu=*)
    cpdef set chi_locks(self, seat, card, own)
    cpdef list chi_choices(self, seat, card)
    cpdef object may_wai(self, d, c)
    cpdef object may_peng(self, s, c)
    cpdef list window_options(self, card, src, kind)
    cpdef close_after_discard(self, s, int c)
    cpdef pass_all(self, int c, int src, kind)
    cpdef on_draw(self, ev)
    cpdef on_discard_phase(self, ev)
    cpdef apply_claim(self, Option opt, ev, Window w)
    cpdef window_closed(self, Window w)
