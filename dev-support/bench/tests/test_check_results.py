"""dev-support/bin/check-results against small git repositories built per test."""
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bin" / "check-results"
SOURCE = "x" * 10_000  # the non-result bytes of every test repository


def repo_with(tmp_path, files):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for name, text in {"src/Main.java": SOURCE, **files}.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True)
    return tmp_path


def run(repo, *args):
    p = subprocess.run([sys.executable, str(SCRIPT), "--repo", str(repo), *args],
                       capture_output=True, text=True, check=False)
    return p.returncode, p.stdout + p.stderr


CITED = {
    "benchmarks/kism/README.md": "[merge](2026-11-24-merge/report.md)\n",
    "benchmarks/kism/2026-11-24-merge/report.md": "B/A 0.5\n",
    "module/README.md": "Figures: [kism](../benchmarks/kism/README.md)\n",
}


def test_cited_small_results_pass(tmp_path):
    rc, out = run(repo_with(tmp_path, CITED))
    assert rc == 0, out
    assert "1 experiment folders, all linked" in out


def test_unreferenced_experiment_fails_naming_it(tmp_path):
    files = dict(CITED)
    files["benchmarks/kism/2026-11-22-old/report.md"] = "superseded\n"
    rc, out = run(repo_with(tmp_path, files))
    assert rc == 1
    assert "benchmarks/kism/2026-11-22-old/ is linked from no tracked *.md" in out
    assert "2026-11-24-merge/ is linked" not in out


def test_link_from_inside_the_folder_does_not_count(tmp_path):
    files = {"benchmarks/jbs/2026-11-24-link/report.md": "[self](report.md) [data](runs.txt)\n",
             "benchmarks/jbs/2026-11-24-link/runs.txt": "1\n"}
    rc, out = run(repo_with(tmp_path, files))
    assert rc == 1
    assert "benchmarks/jbs/2026-11-24-link/ is linked from no" in out


def test_links_in_code_do_not_count_but_folder_and_root_links_do(tmp_path):
    files = {"benchmarks/a/x/report.md": "1\n", "benchmarks/a/y/report.md": "2\n",
             "benchmarks/a/z/report.md": "3\n",
             "README.md": "```\n[x](benchmarks/a/x/report.md)\n```\n`[x](benchmarks/a/x/)`\n"
                          "[y](/benchmarks/a/y/)\n[z]: benchmarks/a/z/report.md#table\n"}
    rc, out = run(repo_with(tmp_path, files))
    assert rc == 1
    assert "benchmarks/a/x/ is linked from no" in out
    assert "benchmarks/a/y/" not in out and "benchmarks/a/z/" not in out


def test_untracked_files_do_not_count(tmp_path):
    repo = repo_with(tmp_path, CITED)
    (repo / "benchmarks/kism/2026-11-25-new").mkdir()
    (repo / "benchmarks/kism/2026-11-25-new/results.json").write_text("y" * 100_000)
    rc, out = run(repo)
    assert rc == 0, out


def test_results_above_the_share_fail(tmp_path):
    files = dict(CITED)
    files["benchmarks/kism/2026-11-24-merge/results.json"] = "y" * 3_000  # ~23 % of the bytes
    rc, out = run(repo_with(tmp_path, files))
    assert rc == 1
    assert "limit 20 %" in out
    rc, out = run(tmp_path, "--max-share", "0.30")
    assert rc == 0, out


def test_broken_link_into_results_fails(tmp_path):
    files = dict(CITED)
    files["module/README.md"] += "[gone](../benchmarks/kism/2026-11-22-merge/report.md)\n"
    rc, out = run(repo_with(tmp_path, files))
    assert rc == 1
    assert (
        "module/README.md links to benchmarks/kism/2026-11-22-merge/report.md, which is not tracked"
        in out
    )
