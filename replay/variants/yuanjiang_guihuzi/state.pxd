# C declarations of YuanjiangState's fields for the compiled kernel (the .py stays the
# reference). Python objects, as in replay/engine.pxd: what this saves is the attribute lookup.
# tests/test_kernel_fields.py holds these fields to YuanjiangState.C_FIELDS; the cpdef methods keep their .py signatures.
# The C types of the claim windows' helpers and locals are here too (cython.locals), so state.py reads as plain Python.

cimport cython
from replay.engine cimport GameState, Option, Window

cdef tuple _EAT_WITH

@cython.locals(k=int, n=cython.longlong)
cdef bint _left_to_discard(list h, set lk, int a, int na, int b, int nb, object new_locks) except -1

@cython.locals(eat=tuple, own=tuple, a=int, b=int, out=list)
cdef object _chi_owns(list h, set lk, dict chi_closed, dict menzi_closed, int card)

cdef bint _wai_ok(list h, set lk, list melds, int c) except -1

cdef bint _peng_ok(list h, set lk, set peng_closed, set peng_own, int c) except -1

cdef class YuanjiangState(GameState):
    cdef public object chi_closed, menzi_closed, peng_closed, peng_own, intact, chi_card, locked, after_wai
    cdef public object dealer_discarded, piao, peng_on_flip, peng_own_discard, order, win, shapes, ting
    # the state's own questions, asked from its compiled windows: C calls, not Python method lookups
    cpdef list free(self, seat)
    @cython.locals(ms=list, i=Py_ssize_t, m=tuple)
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
    @cython.locals(c=int, hands=list, locked=list)
    cpdef list window_options(self, card, src, kind)
    @cython.locals(h=list, eat=tuple, own=tuple)
    cpdef close_after_discard(self, s, int c)
    @cython.locals(order=tuple, flip=bint, hands=list, locked=list, peng_closed=list, i=int, s=int, owns=list)
    cpdef pass_all(self, int c, int src, kind)
    cpdef on_draw(self, ev)
    cpdef on_discard_phase(self, ev)
    cpdef apply_claim(self, Option opt, ev, Window w)
    cpdef window_closed(self, Window w)
