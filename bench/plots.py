"""PNG figures of what the benchmarks measured (matplotlib, where it is
installed: the GPU machine has it). Each function returns the path written,
or None (with the reason printed) when matplotlib is missing."""

import os


def _plt():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except Exception as e:  # noqa: BLE001
        print(f"(no plot: matplotlib unavailable: {e})")
        return None


def speedup_bars(path, title, labels, series, target=None, ylabel="speed-up of TEQ (x)"):
    """Grouped bars: one group per label (a size), one bar per series
    (name -> list of speed-ups, None where not measured); a dashed line at
    1.0 and, if given, at `target` (value or {name: value})."""
    plt = _plt()
    if plt is None:
        return None
    names = list(series)
    n = max(1, len(names))
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(labels) + 2), 4.2))
    for i, name in enumerate(names):
        xs, ys = [], []
        for j, v in enumerate(series[name]):
            if v is not None:
                xs.append(j - 0.4 + width * (i + 0.5))
                ys.append(v)
        bars = ax.bar(xs, ys, width, label=name)
        for b, v in zip(bars, ys):
            ax.text(b.get_x() + b.get_width() / 2, v, f"{v:.2f}", ha="center", va="bottom",
                    fontsize=7)
    ax.axhline(1.0, color="black", linewidth=0.8)
    targets = target if isinstance(target, dict) else ({"target": target} if target else {})
    for k, v in targets.items():
        ax.axhline(v, color="red", linestyle="--", linewidth=0.8)
        ax.text(len(labels) - 0.5, v, f"{k} {v}x", color="red", fontsize=7, ha="right",
                va="bottom")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {path}")
    return path


def fraction_bars(path, title, labels, values, target=0.9, ylabel="fraction of the copy ceiling"):
    """Horizontal bars of fractions (e.g. each quantize kernel's bandwidth
    over the copy ceiling), a line at `target` and at 1.0."""
    plt = _plt()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(7, 0.32 * len(labels) + 1.4))
    ys = list(range(len(labels)))
    vals = [v if v is not None else 0.0 for v in values]
    colors = ["tab:green" if v >= target else "tab:orange" for v in vals]
    ax.barh(ys, vals, color=colors)
    for y, v in zip(ys, vals):
        ax.text(v, y, f" {100 * v:.1f}%", va="center", fontsize=7)
    ax.axvline(target, color="red", linestyle="--", linewidth=0.8)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(ylabel)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {path}")
    return path
