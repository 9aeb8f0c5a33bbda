# C declarations of GuilinState's fields for the compiled kernel (the .py stays the
# reference). Python objects, as in replay/engine.pxd: what this saves is the attribute lookup.
# tests/test_kernel_fields.py holds these fields to GuilinState.C_FIELDS.

from replay.engine cimport GameState, Option, Window

cdef class GuilinState(GameState):
    cdef public object chou, peng_passed, draws, discards, after_forced, win, claims, skip_discard, may_skip
    cdef public object next_draw, must_hu, skipped, forced_card, xing_turns, alike, hu_triple, fang_pao_bi_hu
    cdef public object sao_kai_duo_on_discard, bi_blocks, dian_pao_ok, chi_discard, next_of_claimer, ting_skip
    cdef public object declare, peng_kai_duo_on_other_flip, chou_pai_peng, peng_discard, kan_kai_duo_on_discard
    cpdef bint can_win(self, seat, card, win_from)
    cpdef list window_options(self, card, src, kind, full=*)
    cpdef list chi_choices(self, seat, c)
    cpdef bint has_chi(self, seat, c)
    cpdef on_window_event(self, ev)
    cpdef on_draw(self, ev)
    cpdef on_discard_phase(self, ev)
    cpdef apply_claim(self, Option opt, ev, Window w)
    cpdef window_closed(self, Window w)
    cpdef forced_left_out(self, seat, act, Window w)
    cpdef owe_discard(self, s, src)
