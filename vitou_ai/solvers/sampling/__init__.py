"""Sampling solvers for games too big for a whole tree: external-sampling MCCFR on the
exact information-state keys (:mod:`.mccfr`) and on the abstraction's keys
(:mod:`.mccfr_abstract`, lock-free tables: :mod:`.atomics`), and the abstract tree that
measures an abstract policy exactly on a small game (:mod:`.abstract_tree`)."""
