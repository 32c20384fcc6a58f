"""Random inputs: samplers, dimension draws, counter-based streams and stress regimes.

sampling (the samplers and a trial's inputs), dims (dimension draws), streams
(every value a pure function of key, trial and position), regimes (scales,
boundary values, lopsided draws), bounded (inputs drawn within bounds).
"""

from checkers.inputs.dims import DimsError, draw_dims
from checkers.inputs.sampling import SAMPLERS, sample_batch, sample_input, sample_trial

__all__ = ["SAMPLERS", "DimsError", "draw_dims", "sample_batch", "sample_input", "sample_trial"]
