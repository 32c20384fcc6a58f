"""The dashboard's charts, drawn on the server as inline SVG.

Three small shapes only: a stacked bar of theorems by status, the history of a theorem's
maximum relative error against its tolerance, and the distribution of that error over all
its results as a strip per dtype, both on a log scale. Written here (two hundred lines)
rather than with a charting library: pygal and its kind bring their own style sheets and
scripts, which the dashboard's Content-Security-Policy refuses, while these need neither.
Colours are presentation attributes, not `style=`, for the same reason; every text drawn
is escaped, and every shape has a <title> for readers without the picture.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

__all__ = [
    "STATUS_COLOURS",
    "STATUS_ORDER",
    "ErrorSample",
    "HistoryPoint",
    "history_chart",
    "status_bar",
    "strip_chart",
]

STATUS_ORDER = ("pass", "fail", "error", "unsupported", "unchecked")
STATUS_COLOURS = {
    "pass": "#2e7d32",
    "fail": "#c62828",
    "error": "#ef6c00",
    "unsupported": "#757575",
    "unchecked": "#cfd8dc",
    # a passing theorem whose proof's theorems all pass too (app.dashboard.theorem_graph)
    "holds": "#004d40",
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


ZERO_LABEL = "exact 0"  # the band of errors of 0, apart from the log axis (which has no 0)
ZERO_BAND = 16  # its height (history) or half its width (strip), in pixels
ZERO_GAP = 6  # the gap between it and the log axis


def _decades(values: Sequence[float]) -> tuple[int, int]:
    """The (bottom, top) powers of ten around the positive `values`, at least two apart."""
    positive = [v for v in values if v > 0]
    top = math.ceil(math.log10(max(positive))) + 1 if positive else 0
    bottom = math.floor(math.log10(min(positive))) - 1 if positive else -1
    return min(bottom, top - 2), top


def history_chart(points: Sequence[HistoryPoint], *, width: int = 560, height: int = 200) -> Markup:
    """Max relative error (dots, by status colour) and tolerance (dashes) per result, oldest
    first, on a log scale. Errors of 0, which a log axis cannot show, are drawn in a band of
    their own below it, labelled `exact 0`."""
    measured = [p for p in points if p.max_rel_err is not None or p.rtol is not None]
    if not measured:
        return Markup('<p class="muted">No error measured yet.</p>')
    bottom, top = _decades([v for p in measured for v in (p.max_rel_err, p.rtol) if v is not None])
    floor = 10.0**bottom
    left, right, up, down = 48, 12, 10, 28
    zeros = any(p.max_rel_err == 0 for p in measured)
    plot_w, plot_h = width - left - right, height - up - down
    log_h = plot_h - (ZERO_BAND + ZERO_GAP if zeros else 0)
    zero_y = up + log_h + ZERO_GAP + ZERO_BAND / 2
    step = plot_w / max(len(measured) - 1, 1)

    def x(i: int) -> float:
        return left + (i * step if len(measured) > 1 else plot_w / 2)

    def y(value: float) -> float:
        if value <= 0:
            return zero_y
        return up + log_h * (top - _log(value, floor)) / (top - bottom)

    out = [
        f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'role="img" aria-label="maximum relative error and tolerance per result, log scale">',
        f'<rect x="{left}" y="{up}" width="{plot_w}" height="{log_h}" fill="#fafafa" '
        'stroke="#b0bec5"/>',
    ]
    if zeros:
        out.append(
            f'<rect class="zero" x="{left}" y="{zero_y - ZERO_BAND / 2:.1f}" width="{plot_w}" '
            f'height="{ZERO_BAND}" fill="#fafafa" stroke="#b0bec5"/>'
            f'<text x="{left - 4}" y="{zero_y + 4:.1f}" text-anchor="end" font-size="10">'
            f"{ZERO_LABEL}</text>"
        )
    stride = max(1, (top - bottom) // 6)
    for exponent in range(bottom, top + 1, stride):
        yy = y(10.0**exponent)
        out.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{yy:.1f}" y2="{yy:.1f}" '
            'stroke="#eceff1"/>'
            f'<text x="{left - 4}" y="{yy + 4:.1f}" text-anchor="end" font-size="10">'
            f"1e{exponent}</text>"
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


@dataclass(frozen=True)
class ErrorSample:
    """One result's maximum relative error (measured), its tolerance and where it came from."""

    run_id: int
    seed: int
    dtype: str
    status: str
    max_rel_err: float
    rtol: float | None


def _jitter(i: int) -> float:
    """A spread in [-0.5, 0.5), from the middle out, the same on every render (golden-ratio
    steps)."""
    return (i * 0.6180339887 + 0.5) % 1.0 - 0.5


def strip_chart(samples: Sequence[ErrorSample], *, width: int = 560, strip: int = 44) -> Markup:
    """Each result's maximum relative error as a dot (by status colour) on a log axis, one
    strip per dtype, its tolerances `rtol` as dashed ticks across the strip. Errors of 0,
    which a log axis cannot show, are drawn in a band of their own left of it, labelled
    `exact 0`."""
    if not samples:
        return Markup('<p class="muted">No error measured yet.</p>')
    dtypes = sorted({s.dtype for s in samples})
    bottom, top = _decades([v for s in samples for v in (s.max_rel_err, s.rtol) if v is not None])
    floor = 10.0**bottom
    left, right, up, down = 72, 12, 8, 24
    zeros = any(s.max_rel_err == 0 for s in samples)
    band = 2 * ZERO_BAND + ZERO_GAP if zeros else 0  # the zero band's width and its gap
    plot_w = width - left - right
    log_left, log_w = left + band, plot_w - band
    height = up + down + strip * len(dtypes)

    def x(value: float) -> float:
        if value <= 0:
            return left + ZERO_BAND
        return log_left + log_w * (_log(value, floor) - bottom) / (top - bottom)

    out = [
        f'<svg class="strip" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="maximum relative error of '
        f'{len(samples)} results by dtype against the tolerance, log scale">'
    ]
    stride = max(1, (top - bottom) // 6)
    for exponent in range(bottom, top + 1, stride):
        xx = x(10.0**exponent)
        out.append(
            f'<line x1="{xx:.1f}" x2="{xx:.1f}" y1="{up}" y2="{height - down}" stroke="#eceff1"/>'
            f'<text x="{xx:.1f}" y="{height - 8}" text-anchor="middle" font-size="10">'
            f"1e{exponent}</text>"
        )
    if zeros:
        out.append(
            f'<text x="{left + ZERO_BAND}" y="{height - 8}" text-anchor="middle" '
            f'font-size="10">{ZERO_LABEL}</text>'
        )
    for row, dtype in enumerate(dtypes):
        y0 = up + row * strip
        mid = y0 + strip / 2
        if zeros:
            out.append(
                f'<rect class="zero" x="{left}" y="{y0 + 2}" width="{2 * ZERO_BAND}" '
                f'height="{strip - 4}" fill="#fafafa" stroke="#b0bec5"/>'
            )
        out.append(
            f'<rect x="{log_left}" y="{y0 + 2}" width="{log_w}" height="{strip - 4}" '
            'fill="#fafafa" stroke="#b0bec5"/>'
            f'<text x="{left - 6}" y="{mid + 4:.1f}" text-anchor="end" font-size="11">'
            f"{escape(dtype)}</text>"
        )
        mine = [s for s in samples if s.dtype == dtype]
        for rtol in sorted({s.rtol for s in mine if s.rtol}):
            xx = x(rtol)
            out.append(
                f'<line class="rtol" x1="{xx:.1f}" x2="{xx:.1f}" y1="{y0 + 2}" '
                f'y2="{y0 + strip - 2}" stroke="#1565c0" stroke-width="2" '
                f'stroke-dasharray="4 3"><title>{escape(f"rtol {rtol:.3g} ({dtype})")}</title>'
                "</line>"
            )
        for i, s in enumerate(mine):
            tip = (
                f"run {s.run_id}, seed {s.seed}, {s.dtype}: max rel err {s.max_rel_err:.3g}, "
                f"{s.status}" + (f" (rtol {s.rtol:.3g})" if s.rtol is not None else "")
            )
            out.append(
                f'<circle cx="{x(s.max_rel_err):.1f}" cy="{mid + _jitter(i) * (strip - 16):.1f}" '
                f'r="3.5" fill="{STATUS_COLOURS.get(s.status, "#000")}" fill-opacity="0.8">'
                f"<title>{escape(tip)}</title></circle>"
            )
    out.append("</svg>")
    return Markup("".join(out))
