"""Small ViT dims the unit tests can afford (every test at them shares one compiled
program per dtype and part)."""

SMALL = {"B": 2, "depth": 2, "D": 16, "heads": 2, "mlp": 32, "img": 8, "patch": 4, "K": 5}
