"""Full-width solvers on a deal's whole game tree held as flat arrays: the tree
(:mod:`.tree`), CFR / CFR+ / DCFR (:mod:`.cfr`, kernels :mod:`.kernels`), exact
evaluation (:mod:`.evaluate`), the sequence-form LP (:mod:`.sequence_form`), the exact
team max-min (:mod:`.team_maxmin`) and the OpenSpiel export (:mod:`.export`)."""
