"""The dashboard's charts, drawn on the server as inline SVG.

Two small shapes only: a stacked bar of theorems by status, and the history of a
theorem's maximum relative error against its tolerance, on a log scale. Written here (a
hundred lines) rather than with a charting library: pygal and its kind bring their own
style sheets and scripts, which the dashboard's Content-Security-Policy refuses, while
these need neither. Colours are presentation attributes, not `style=`, for the same reason;
every text drawn is escaped, and every shape has a <title> for readers without the
picture.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

__all__ = ["STATUS_COLOURS", "STATUS_ORDER", "HistoryPoint", "history_chart", "status_bar"]

STATUS_ORDER = ("pass", "fail", "error", "unsupported", "unchecked")
STATUS_COLOURS = {
    "pass": "#2e7d32",
    "fail": "#c62828",
    "error": "#ef6c00",
    "unsupported": "#757575",
    "unchecked": "#cfd8dc",
}
STATUS_LABELS = {"unchecked": "never run"}


def _label(status: str) -> str:
    return STATUS_LABELS.get(status, status)


def status_bar(counts: Mapping[str, int], *, width: int = 240, height: int = 14) -> Markup:
    """A bar split by status in STATUS_ORDER, each part as wide as its share."""
    total = sum(counts.get(s, 0) for s in STATUS_ORDER)
    summary = ", ".join(f"{counts.get(s, 0)} {_label(s)}" for s in STATUS_ORDER if counts.get(s))
    parts = [
        f'<svg class="bar" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{escape(summary or "no theorems")}">'
    ]
    if total == 0:
        parts.append(f'<rect width="{width}" height="{height}" fill="#eceff1"/>')
    x = 0.0
    for status in STATUS_ORDER:
        n = counts.get(status, 0)
        if not n:
            continue
        w = width * n / total
        parts.append(
            f'<rect x="{x:.2f}" width="{w:.2f}" height="{height}" '
            f'fill="{STATUS_COLOURS[status]}"><title>{n} {escape(_label(status))}</title></rect>'
        )
        x += w
    parts.append("</svg>")
    return Markup("".join(parts))


@dataclass(frozen=True)
class HistoryPoint:
    """One result: its run, its error and tolerance (None: not measured), its status."""

    run_id: int
    max_rel_err: float | None
    rtol: float | None
    status: str
    dtype: str


def _log(value: float, floor: float) -> float:
    return math.log10(max(value, floor))


def history_chart(points: Sequence[HistoryPoint], *, width: int = 560, height: int = 200) -> Markup:
    """Max relative error (dots, by status colour) and tolerance (dashes) per result, oldest
    first, on a log scale. An error of 0 is drawn at the bottom edge, labelled `0`."""
    measured = [p for p in points if p.max_rel_err is not None or p.rtol is not None]
    if not measured:
        return Markup('<p class="muted">No error measured yet.</p>')
    values = [v for p in measured for v in (p.max_rel_err, p.rtol) if v is not None and v > 0]
    top = math.ceil(math.log10(max(values))) + 1 if values else 0
    bottom = math.floor(math.log10(min(values))) - 1 if values else -1
    bottom = min(bottom, top - 2)
    floor = 10.0**bottom
    left, right, up, down = 48, 12, 10, 28
    plot_w, plot_h = width - left - right, height - up - down
    step = plot_w / max(len(measured) - 1, 1)

    def x(i: int) -> float:
        return left + (i * step if len(measured) > 1 else plot_w / 2)

    def y(value: float) -> float:
        return up + plot_h * (top - _log(value, floor)) / (top - bottom)

    out = [
        f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'role="img" aria-label="maximum relative error and tolerance per result, log scale">',
        f'<rect x="{left}" y="{up}" width="{plot_w}" height="{plot_h}" fill="#fafafa" '
        'stroke="#b0bec5"/>',
    ]
    stride = max(1, (top - bottom) // 6)
    for exponent in range(bottom, top + 1, stride):
        yy = y(10.0**exponent)
        label = "0" if exponent == bottom else f"1e{exponent}"
        out.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{yy:.1f}" y2="{yy:.1f}" '
            'stroke="#eceff1"/>'
            f'<text x="{left - 4}" y="{yy + 4:.1f}" text-anchor="end" font-size="10">'
            f"{label}</text>"
        )
    # the tolerance as steps, each result's across its own slot
    half = step / 2 if len(measured) > 1 else plot_w / 2
    steps = [
        f"{max(left, x(i) - half):.1f},{y(p.rtol):.1f} {min(left + plot_w, x(i) + half):.1f},"
        f"{y(p.rtol):.1f}"
        for i, p in enumerate(measured)
        if p.rtol
    ]
    if steps:
        out.append(
            f'<polyline points="{" ".join(steps)}" fill="none" stroke="#1565c0" '
            'stroke-dasharray="4 3"><title>tolerance (rtol)</title></polyline>'
        )
    for i, p in enumerate(measured):
        if p.max_rel_err is None:
            continue
        colour = STATUS_COLOURS.get(p.status, "#000")
        tip = f"run {p.run_id}, {p.dtype}: max rel err {p.max_rel_err:.3g}, {p.status}"
        if p.rtol is not None:
            tip += f" (rtol {p.rtol:.3g})"
        out.append(
            f'<circle cx="{x(i):.1f}" cy="{y(p.max_rel_err):.1f}" r="4" fill="{colour}">'
            f"<title>{escape(tip)}</title></circle>"
        )
    for i, p in enumerate(measured):
        if len(measured) <= 12 or i in (0, len(measured) - 1):
            out.append(
                f'<text x="{x(i):.1f}" y="{height - 10}" text-anchor="middle" font-size="10">'
                f"run {p.run_id}</text>"
            )
    out.append("</svg>")
    return Markup("".join(out))
