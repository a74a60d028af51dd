"""Runs commands against a cluster described by a cluster.env file (pseudo or emulated)."""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
JOB_ID = re.compile(r"Running job: (job_\d+_\d+)")


@dataclass
class Cluster:
    env_file: Path
    history_url: str = "http://localhost:19888"

    def sh(
        self, command: str, log: Path | None = None, check: bool = True
    ) -> subprocess.CompletedProcess:
        """Runs a shell command with the cluster's environment; output to log (or captured)."""
        full = f". {shlex.quote(str(self.env_file))} && {command}"
        if log is None:
            return subprocess.run(["bash", "-c", full], check=check, capture_output=True, text=True)
        with open(log, "w") as f:
            return subprocess.run(
                ["bash", "-c", full], check=check, stdout=f, stderr=subprocess.STDOUT, text=True
            )

    def env(self, name: str) -> str:
        return self.sh(f'echo "${name}"').stdout.strip()

    def run_job(self, argv: list[str], log: Path) -> tuple[float, list[str], int]:
        """Runs one client command; returns wall seconds, the job ids it submitted, exit code."""
        t = time.perf_counter()
        p = self.sh(" ".join(shlex.quote(a) for a in argv), log=log, check=False)
        wall = time.perf_counter() - t
        return wall, JOB_ID.findall(log.read_text(errors="replace")), p.returncode

    def keep_logs(self, job_id: str, dest: Path) -> None:
        """Copies the job's AM syslog, and the ResourceManager's log so far, into dest: the
        cluster's logs go with it when it goes down (pseudo: WORK/logs, emulated:
        WORK/nodes/HOST/logs), and its container placement is only in them."""
        work = self.env("CLUSTER_WORK")
        if not work:
            return
        app = "application_" + job_id[len("job_"):]
        dest.mkdir(parents=True, exist_ok=True)
        for logs in ("logs", "nodes/*/logs"):  # not "**": the work dir holds the block files
            for f in Path(work).glob(f"{logs}/userlogs/{app}/container_*_01_000001/syslog"):
                shutil.copyfile(f, dest / f"{job_id}-am.log")
            for f in Path(work).glob(f"{logs}/*-resourcemanager-*.log"):
                shutil.copyfile(f, dest / "resourcemanager.log")

    def drop_caches(self) -> None:
        subprocess.run(["sync"], check=True)
        Path("/proc/sys/vm/drop_caches").write_text("3\n")


def pseudo_up(work: Path, extra: tuple[str, ...] = ()) -> Cluster:
    cmd = [str(REPO / "dev-support/bin/pseudo-cluster"), "up", "--work-dir", str(work)]
    for kv in extra:
        cmd += ["--conf", kv]
    subprocess.run(cmd, check=True)
    return Cluster(work / "cluster.env")


def pseudo_down(work: Path) -> None:
    subprocess.run(
        [str(REPO / "dev-support/bin/pseudo-cluster"), "down", "--work-dir", str(work)], check=True
    )
