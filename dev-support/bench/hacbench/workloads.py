"""The workloads an experiment can run: how to generate the input once, how to run the job.

Jobs come from our workloads jar, upstream's examples jar and streaming jar, all in the tarball.
Each argv may use {jar} {examples} {streaming} {bin} {py} {shm} {native} {python} {input} {output}
({python}: one interpreter binary for every Python workload, not a wrapper such as a pyenv shim,
so A and B run the same one and the preload shim sees the real program).
"""
from __future__ import annotations

from dataclasses import dataclass, field

MB = 1 << 20


@dataclass(frozen=True)
class Workload:
    name: str
    generate: list[str]  # argv that writes {input}; size-dependent parts via sizes()
    run: list[str]
    sizes: dict = field(default_factory=dict)  # extra format keys computed from --size
    sorted_output: bool = True  # output order is deterministic (else compare sorted lines)


def _text(run: list[str], sorted_output: bool = True) -> dict:
    return dict(
        generate=["{jar}", "gen-text", "-bytes", "{size}", "-seed", "7", "{input}"],
        run=run,
        sorted_output=sorted_output,
    )


# 1 MB files of seed-000 text, {files} of them (the same generator as InvertedIndex's input).
SMALL_FILES = dict(
    generate=[
        "{jar}", "gen-smallfiles", "-numFiles", "{files}", "-fileSize", "1m", "-seed", "7",
        "{input}",
    ],
    sizes={"files": lambda size: max(1, size // MB)},
)
WORDCOUNT = ["{jar}", "wordcount", "-combiner", "{input}", "{output}"]
GREP = ["{jar}", "grep", "-nosort", "{input}", "{output}", "[a-d][a-z]*e"]
STREAM = ["{streaming}", "-input", "{input}", "-output", "{output}"]
# ShmStreaming's example programs from the tarball; they run over pipes, or over the rings when
# the configuration's job options add -io shm.
SHM_PY = STREAM + ["-cmdenv", "PYTHONPATH={shm}/python"]
SHM_C = "{shm}/examples/shm_"
# Unmodified programs over the rings: ShmStreaming's preload shim in the program's process.
SHIM = "env LD_PRELOAD={native}/libhadoop_shm_preload.so "

WORKLOADS = {
    w.name: w
    for w in [
        Workload("wordcount", **_text(WORDCOUNT)),
        Workload(
            "wordcount-nocombiner",
            **_text(["{jar}", "wordcount", "-nocombiner", "{input}", "{output}"]),
        ),
        Workload("grep", **_text(GREP)),
        Workload("sort", **_text(["{jar}", "sort", "{input}", "{output}"])),
        Workload(
            "invertedindex",
            run=["{jar}", "invertedindex", "{input}", "{output}"],
            **SMALL_FILES,
        ),
        # Seed 003 ch.4's small-file case: 1 MB files, one per MB of --size (1,000 for 1000m).
        Workload("grep-smallfiles", run=GREP, **SMALL_FILES),
        Workload("wordcount-smallfiles", run=WORDCOUNT, **SMALL_FILES),
        Workload(
            "adjacencylist",
            generate=["{jar}", "gen-adjacency", "-bytes", "{size}", "-seed", "7", "{input}"],
            run=["{jar}", "adjacencylist", "{input}", "{output}"],
        ),
        Workload(
            "selfjoin",
            generate=["{jar}", "gen-selfjoin", "-records", "{records}", "-seed", "7", "{input}"],
            run=["{jar}", "selfjoin", "-k", "3", "{input}", "{output}"],
            sizes={"records": lambda size: max(16, size // 20)},
        ),
        Workload(
            "terasort",
            generate=["{examples}", "teragen", "{rows}", "{input}"],
            run=["{examples}", "terasort", "{input}", "{output}"],
            sizes={"rows": lambda size: max(1, size // 100)},
        ),
        Workload(
            "streaming-wc-c",
            **_text(
                STREAM
                + ["-mapper", "{bin}/wordcount-mapper", "-reducer", "{bin}/wordcount-reducer"],
                False,
            ),
        ),
        Workload(
            "streaming-wc-py",
            **_text(
                STREAM
                + [
                    "-mapper",
                    "{python} {py}/wordcount_mapper.py",
                    "-reducer",
                    "{python} {py}/wordcount_reducer.py",
                ],
                False,
            ),
        ),
        Workload(
            "streaming-grep-c",
            **_text(
                STREAM
                + ["-mapper", "{bin}/grep-mapper [a-d][a-z]*e", "-reducer", "{bin}/grep-reducer"],
                False,
            ),
        ),
        Workload(
            "streaming-grep-py",
            **_text(
                STREAM
                + [
                    "-mapper",
                    "{python} {py}/grep_mapper.py [a-d][a-z]*e",
                    "-reducer",
                    "{python} {py}/grep_reducer.py",
                ],
                False,
            ),
        ),
        Workload(
            "shm-wc-c",
            **_text(
                STREAM
                + ["-mapper", SHM_C + "wordcount_mapper", "-reducer", SHM_C + "wordcount_reducer"],
                False,
            ),
        ),
        Workload(
            "shm-wc-c-combiner",
            **_text(
                STREAM
                + [
                    "-mapper",
                    SHM_C + "wordcount_mapper",
                    "-combiner",
                    SHM_C + "wordcount_reducer",
                    "-reducer",
                    SHM_C + "wordcount_reducer",
                ],
                False,
            ),
        ),
        Workload(
            "shm-wc-c-inmem",
            **_text(
                STREAM
                + [
                    "-mapper",
                    SHM_C + "wordcount_combining_mapper",
                    "-reducer",
                    SHM_C + "wordcount_reducer",
                ],
                False,
            ),
        ),
        Workload(
            "shm-grep-c",
            **_text(
                STREAM
                + [
                    "-mapper",
                    SHM_C + "grep_mapper [a-d][a-z]*e",
                    "-reducer",
                    SHM_C + "wordcount_reducer",
                ],
                False,
            ),
        ),
        Workload(
            "shm-wc-py",
            **_text(
                SHM_PY
                + [
                    "-mapper",
                    "{python} {shm}/python/examples/wordcount_mapper.py",
                    "-reducer",
                    "{python} {shm}/python/examples/wordcount_reducer.py",
                ],
                False,
            ),
        ),
        Workload(
            "shim-wc-py",
            **_text(
                STREAM
                + [
                    "-mapper",
                    SHIM + "{python} {py}/wordcount_mapper.py",
                    "-reducer",
                    SHIM + "{python} {py}/wordcount_reducer.py",
                ],
                False,
            ),
        ),
        Workload(
            "shm-grep-py",
            **_text(
                SHM_PY
                + [
                    "-mapper",
                    "{python} {shm}/python/examples/grep_mapper.py [a-d][a-z]*e",
                    "-reducer",
                    "{python} {shm}/python/examples/wordcount_reducer.py",
                ],
                False,
            ),
        ),
    ]
}


def expand(argv: list[str], values: dict) -> list[str]:
    return [a.format(**values) for a in argv]


def with_job_args(argv: list[str], job_args: list[str]) -> list[str]:
    """Puts -D options right after the program name, where Tool's GenericOptionsParser reads them.

    argv[0] is a jar; for our jar and examples the program name follows it, streaming has none.
    """
    at = 1 if "streaming" in argv[0] else 2
    return argv[:at] + job_args + argv[at:]
