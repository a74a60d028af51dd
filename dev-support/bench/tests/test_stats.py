from hacbench.stats import Spread, compare


def test_spread_ignores_missing_values():
    s = Spread.of([3.0, None, 1.0, 2.0])
    assert (s.median, s.min, s.max, s.n) == (2.0, 1.0, 3.0, 3)
    assert Spread.of([None]) is None


def test_ratio_of_medians_and_pair_ratios():
    c = compare("wall_s", [10.0, 12.0, 11.0], [5.0, 9.0, 5.5])
    assert c.ratio == 5.5 / 11.0
    # Per-pair ratios: 0.5, 0.75, 0.5.
    assert (c.pair_ratios.min, c.pair_ratios.max, c.pair_ratios.median) == (0.5, 0.75, 0.5)


def test_zero_baseline_has_no_ratio():
    c = compare("SPILLED_RECORDS", [0, 0], [0, 0])
    assert c.ratio is None and c.pair_ratios is None
    assert c.a.median == 0
