"""The theorems of the worker fault tests (`fault_checkers` registers their checkers) and
the Lean source that states them."""

from __future__ import annotations

STATEMENT = "(x : ℝ) : x + 0 = x"
SLOW_S = 0.6
OK = [f"Faults.ok_{k}" for k in range(24)]
SLOW = [f"Faults.slow_{k}" for k in range(16)]
FAULTY = ["Faults.hangs", "Faults.stuck", "Faults.raises", "Faults.memory", "Faults.killed"]


def _lean() -> str:
    lines = ["namespace Faults", ""]
    for name in OK + SLOW + FAULTY:
        short = name.removeprefix("Faults.")
        lines.append(f"theorem {short} {STATEMENT} := by simp")
    lines += ["", "end Faults", ""]
    return "\n".join(lines)


FAULTS_LEAN = _lean()
