#!/usr/bin/env python3
"""Counts test outcomes in the suite logs that tests/run-in-cluster wrote.

  tests/summarize.py LOGDIR

LOGDIR/plan names the suites the runner meant to run, one a line (a suite
name, then the tests it was asked to run, if any).  Each suite left
LOGDIR/SUITE.status (its exit status) and LOGDIR/SUITE.log (its output); a
suite of the plan without both, or with an empty log, did not run: that is
a failure, with a line naming the suite.  LOGDIR/build.status, when there,
is the build's exit status.

pg_regress and pg_isolation_regress print one "name ... ok|FAILED" line per
test; unittest -v prints one "... ok|FAIL|ERROR|skipped" line per test; the
suites in tests/suites print "name ... ok|FAIL[: details]".  A suite that
exited non-zero without a failing line counts as one failure, one that ran
no test as well, so a crash can never pass as success.  A known bug kept as
an expected failure counts as skipped, never as passed.

A line whose name starts with "rerun " is a test counted elsewhere, run
again (the sanitizers suite reruns e2e and hostile under ASan/UBSan and
valgrind, pg_regress under the sanitizer build of the extension): reruns
are counted apart, and each failed rerun adds one failure to the total.

Prints one line per suite, then "sanitizer reruns: N passed, N failed" (when
there were reruns), then "N passed, N failed[, N skipped]" for the distinct
tests; exits non-zero on any failure.
"""
import pathlib
import re
import sys

REGRESS_LINE = re.compile(r"^\s*(?:test\s+)?(\S+)\s+\.\.\.\s+(ok|FAILED|failed)\b")
UNITTEST_LINE = re.compile(
    r"^(.*?) \.\.\. (ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success)(?:[:(].*)?$")


class Counts:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def add(self, word):
        if word == "ok":
            self.passed += 1
        elif word.startswith("skipped") or word == "expected failure":
            # a known bug kept visible as a test is not a pass
            self.skipped += 1
        else:
            self.failed += 1

    def any(self):
        return self.passed + self.failed + self.skipped > 0

    def __str__(self):
        text = f"{self.passed} passed, {self.failed} failed"
        return text + (f", {self.skipped} skipped" if self.skipped else "")


def count(log: pathlib.Path):
    """(distinct, reruns) Counts of one log."""
    distinct, reruns = Counts(), Counts()
    for line in log.read_text(errors="replace").splitlines():
        m = REGRESS_LINE.match(line) or UNITTEST_LINE.match(line)
        if not m:
            continue
        (reruns if m.group(1).lstrip().startswith("rerun ") else distinct).add(m.group(2))
    return distinct, reruns


def read_plan(logdir: pathlib.Path):
    plan = logdir / "plan"
    if not plan.exists():
        return None
    return [line.split()[0] for line in plan.read_text().splitlines() if line.strip()]


def main() -> int:
    logdir = pathlib.Path(sys.argv[1])
    total, reruns_total = Counts(), Counts()
    any_reruns = False

    build = logdir / "build.status"
    if build.exists() and build.read_text().strip() != "0":
        print(f"build: FAILED (see {logdir}/build.log)")
        total.failed += 1

    suites = read_plan(logdir)
    if suites is None:
        print(f"the runner wrote no plan ({logdir}/plan): which suites should have run is unknown")
        total.failed += 1
        suites = sorted(p.stem for p in logdir.glob("*.status") if p.stem != "build")
    elif not suites:
        print("no suite was selected to run")
        total.failed += 1

    for suite in suites:
        status_file, log = logdir / f"{suite}.status", logdir / f"{suite}.log"
        if not status_file.exists() or not log.exists() or log.stat().st_size == 0:
            why = "no status" if not status_file.exists() else "no log" if not log.exists() else "empty log"
            print(f"{suite}: did not run ({why} in {logdir})")
            total.failed += 1
            continue
        text = status_file.read_text().strip()
        rc = int(text) if text.lstrip("-").isdigit() else 1
        distinct, reruns = count(log)
        if rc != 0 and distinct.failed == 0 and reruns.failed == 0:
            print(f"{suite}: exited with status {rc} without a failing test line")
            distinct.failed += 1
        if distinct.passed == 0 and distinct.failed == 0:
            print(f"{suite}: ran no test" if not distinct.skipped
                  else f"{suite}: passed no test ({distinct.skipped} skipped)")
            distinct.failed += 1
        line = f"{suite}: {distinct}"
        if reruns.any():
            any_reruns = True
            line += f" (sanitizer reruns: {reruns})"
            reruns_total.passed += reruns.passed
            reruns_total.failed += reruns.failed
            reruns_total.skipped += reruns.skipped
        print(line)
        total.passed += distinct.passed
        total.failed += distinct.failed
        total.skipped += distinct.skipped

    if any_reruns:
        print(f"sanitizer reruns: {reruns_total}")
    # a failed rerun fails the run: one failure each in the closing line
    total.failed += reruns_total.failed
    print(total)
    return 1 if total.failed else 0


if __name__ == "__main__":
    sys.exit(main())
