# C declarations of replay/engine.py's classes for the compiled kernel (Cython reads this
# file beside the .py, which stays the importable reference). Fields are Python objects: the compiled
# code keeps Python's values and semantics; what it saves is the attribute lookup, and, for the
# methods declared here (cpdef), the Python call from compiled code.
# A variant's state.pxd cimports GameState to declare its own fields the same way.

cdef class Option:
    cdef public object seat, act, key, forced, events, rule

cdef class Window:
    cdef public object card, src, kind, passed, declined
    cdef public object _options, _build, _closing, _closing_options
    cpdef list of(self, seat)
    cpdef list ahead_of(self, opt)
    cpdef list forced_open(self)

cdef class GameState:
    cdef dict __dict__
    cdef public object record, rules, n, dealer, stake, hands, wall, front, back, melds, river
    cdef public object phase, turn, window, step, outcome
    # the phase machine's steps, called by apply at every event: C calls, not Python method lookups
    # (a variant overrides them as cpdef too, or as plain Python methods)
    cpdef xia(self, seat)
    cpdef to_draw(self, seat)
    cpdef check_fields(self, ev)
    cpdef _targets_window(self, ev)
    cpdef _matching_option(self, ev, list opts)
    cpdef on_window_event(self, ev)
    cpdef close_window(self)
    cpdef on_draw(self, ev)
    cpdef on_discard_phase(self, ev)
    cpdef apply_claim(self, Option opt, ev, Window w)
    cpdef window_closed(self, Window w)
