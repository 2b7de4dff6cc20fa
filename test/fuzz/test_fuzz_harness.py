"""The harness of the large budgets (fuzzing.Worker, run_cases): a case that kills its child is
reported with the call that killed it and the next case gets a new child; a child's start-up,
however slow, is not counted against its first case's time limit."""
import fuzzing
from fuzzing import run_cases


def test_a_case_that_kills_its_child_is_reported_and_the_next_runs():
    def one_case(case, call):
        if case == 1:
            call("os:abort")
        return call("os:getcwd") and None
    failures = run_cases(3, one_case, isolated=True)
    assert len(failures) == 1, failures
    assert failures[0].startswith("case 1: died: the child died (exit status -6)"), failures[0]
    assert failures[0].endswith("--- the call\nos:abort()"), failures[0]


def test_a_slow_start_is_not_a_hang(monkeypatch):
    """The previous large run of compile() counted 5 'hangs' that were children still importing
    on a loaded machine: the case's clock starts once the child says it is ready."""
    monkeypatch.setattr(fuzzing, "TIME_LIMIT", -58)             # 2 s for a case
    monkeypatch.setenv("ASCEND_MLA_FUZZ_WORKER_DELAY", "3")    # a 3 s start, imports aside
    worker = fuzzing.Worker()
    try:
        assert worker.call("os:getpid")[0] == "ok"
    finally:
        worker.close()
