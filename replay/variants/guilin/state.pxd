# C declarations of GuilinState's fields for the compiled kernel (the .py stays the
# reference). Python objects, as in replay/engine.pxd: what this saves is the attribute lookup.
# tests/test_kernel_fields.py holds these fields to GuilinState.C_FIELDS. The C types of the claim
# windows' locals are here too (cython.locals), so state.py reads as plain Python.

cimport cython
from replay.engine cimport GameState, Option, Window

@cython.locals(k=Py_ssize_t, v=cython.longlong, t=cython.longlong)
cdef long long _free_total(list h) except *

@cython.locals(i=Py_ssize_t, out=list)
cdef list _claim_order(Py_ssize_t n, Py_ssize_t src, bint flip)

@cython.locals(k=Py_ssize_t, t=Py_ssize_t, v=cython.longlong)
cdef Py_ssize_t _n_alike(list h, long long x) except *

@cython.locals(ix=dict)
cdef object _kind(object state, object code)

cdef class GuilinState(GameState):
    cdef public object chou, peng_passed, draws, discards, after_forced, win, claims, skip_discard, may_skip
    cdef public object next_draw, must_hu, skipped, forced_card, xing_turns, alike, hu_triple, fang_pao_bi_hu
    cdef public object sao_kai_duo_on_discard, bi_blocks, dian_pao_ok, chi_discard, next_of_claimer, ting_skip
    cdef public object declare, peng_kai_duo_on_other_flip, chou_pai_peng, peng_discard, kan_kai_duo_on_discard
    cpdef bint can_win(self, seat, card, win_from)
    @cython.locals(order=list, out=list)
    cpdef list window_options(self, card, src, kind, full=*)
    @cython.locals(c=Py_ssize_t, d=Py_ssize_t, n_held=cython.longlong, mine=dict, seen=set)
    cpdef Option sao_option(self, c, d)
    @cython.locals(c=Py_ssize_t, s=Py_ssize_t, pos=Py_ssize_t, hands=list, out=list)
    cpdef list hu_options(self, c, src, bint flip, list order)
    @cython.locals(c=Py_ssize_t, s=Py_ssize_t, n_held=cython.longlong, hands=list, alikes=list, h=list, mine=dict,
                   out=list)
    cpdef list duo_peng_options(self, c, src, bint flip, list order)
    @cython.locals(c=Py_ssize_t, s=Py_ssize_t, pos=Py_ssize_t, chou=list, seen=set, out=list)
    cpdef list chi_options(self, c, src, bint flip, bint full=*)
    cpdef list chi_choices(self, seat, c)
    cpdef bint has_chi(self, seat, c)
    @cython.locals(w=Window, o=Option)
    cpdef on_window_event(self, ev)
    cpdef on_draw(self, ev)
    cpdef on_discard_phase(self, ev)
    @cython.locals(o=Option, passed=set, chou=list, peng_passed=list, could_peng=bint)
    cpdef note_passes(self, s, act, Window w)
    @cython.locals(h=list, melds=list)
    cpdef lay_meld(self, s, act, c, ev)
    cpdef apply_claim(self, Option opt, ev, Window w)
    @cython.locals(o=Option)
    cpdef window_closed(self, Window w)
    @cython.locals(o=Option)
    cpdef forced_left_out(self, seat, act, Window w)
    cpdef owe_discard(self, s, src)
    @cython.locals(o=Option)
    cpdef kai_duo_as_hu(self, Option opt, Window w)
    cpdef list outranked_as_hu(self, seat, Window w)
    @cython.locals(o=Option, w=Window)
    cpdef list window_events(self)
