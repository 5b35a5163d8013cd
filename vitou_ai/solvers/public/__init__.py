"""Solvers on the public tree (one node per public state, a vector of hands at each):
the tree (:mod:`.tree`), vector CFR (:mod:`.cfr`, kernels :mod:`.kernels`), the team
passes (:mod:`.team`), the export to tabular and bot policies (:mod:`.export`) and the
subgame re-solving of real-time search (:mod:`.subgame`)."""
