"""Binders and hypotheses: how a statement's inputs are drawn so that its premises hold.

binders plans each binder (with binder_shapes); bounds (with bound_search and
bound_values) turns hypotheses such as `0 < ε` or `∀ i, |x i| ≤ w` into sampler
bounds; reparam draws inputs so that a premise holds by construction; drawn_functions
and drawn_lists draw functions, integers and lists whose lengths are dimensions;
holding evaluates the remaining hypotheses per trial (a trial where one fails is
vacuous) and probes how often they hold.
"""

from checkers.premises.binders import Input, Plan, plan_binders

__all__ = ["Input", "Plan", "plan_binders"]
