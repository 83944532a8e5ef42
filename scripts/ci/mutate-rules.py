#!/usr/bin/env python3
"""Proves the promtool tests guard the multi-window burn-rate alerts: every mutant must fail them.

usage: mutate-rules.py RULES.yaml TESTS.yaml [TESTS.yaml ...]   (RULES: the PrometheusRule's spec, as promtool reads it)

For each alert named Dfc*BudgetBurn*, mutants are made of the rule file, one change each:
  - one window of a burn-rate pair dropped (the clause `<recorded ratio over window> > (...)`);
  - the traffic guard of a pair dropped (`dfc:slo_requests:rate<window> > N`);
  - `for:` halved and doubled.
Each mutant is run with `promtool test rules` against the test groups (of every TESTS file) that
evaluate the mutated alert; a mutant that passes them all (the tests did not notice) fails this
script. Exits 1 listing the survivors.
"""
import concurrent.futures
import copy
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import yaml

CLAUSE = re.compile(r"^\s*dfc:(slo_\w+:ratio_rate\w+|slo_requests:rate\w+) > \S.*$")


def duration(text):
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    return sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([smhd])", text))


def render(seconds):
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def drop_clause(expr, index):
    """expr without its index-th clause line and the `and` that joins it to its pair."""
    lines = expr.splitlines()
    at = [i for i, line in enumerate(lines) if CLAUSE.match(line)][index]
    joiner = at - 1 if lines[at - 1].strip() == "and" else at + 1
    assert lines[joiner].strip() == "and", f"clause {lines[at].strip()!r} is not joined by `and`"
    return "\n".join(line for i, line in enumerate(lines) if i not in (at, joiner)) + "\n"


def mutants(spec):
    for g, group in enumerate(spec["groups"]):
        for r, rule in enumerate(group["rules"]):
            name = rule.get("alert", "")
            if not re.fullmatch(r"Dfc\w+BudgetBurn\w+", name):
                continue
            clauses = [line.strip() for line in rule["expr"].splitlines() if CLAUSE.match(line)]
            # Two pairs, each a long and a short window and a traffic guard.
            if len(clauses) != 6:
                sys.exit(f"mutate-rules: {name}: expected 6 clauses (2 windows + guard, twice), found {clauses}")
            for i, clause in enumerate(clauses):
                mutant = copy.deepcopy(spec)
                mutant["groups"][g]["rules"][r]["expr"] = drop_clause(rule["expr"], i)
                yield f"{name}: without `{clause}`", name, mutant
            for factor, word in ((0.5, "halved"), (2, "doubled")):
                mutant = copy.deepcopy(spec)
                changed = render(int(duration(rule["for"]) * factor))
                mutant["groups"][g]["rules"][r]["for"] = changed
                yield f"{name}: for {rule['for']} {word} to {changed}", name, mutant


def run(rules, tests, alert):
    """(failed, first failing test) of promtool on the groups of `tests` that evaluate `alert`, against `rules`."""
    groups = [t for t in tests["tests"] if any(a.get("alertname") == alert for a in t.get("alert_rule_test") or [])]
    if not groups:
        return False, ""
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        (work / "rules.yaml").write_text(yaml.safe_dump(rules, sort_keys=False))
        (work / "tests.yaml").write_text(yaml.safe_dump({**tests, "rule_files": ["rules.yaml"], "tests": groups}, sort_keys=False))
        done = subprocess.run(["promtool", "test", "rules", "tests.yaml"], cwd=work, capture_output=True, text=True)
    failed = [line.strip().rstrip(",") for line in (done.stdout + done.stderr).splitlines() if line.strip().startswith("name:")]
    return done.returncode != 0, failed[0] if failed else "promtool failed"


def judge(job):
    what, alert, mutant, test_files = job
    for tests in test_files:
        failed, by = run(mutant, tests, alert)
        if failed:
            return what, by
    return what, ""


def main():
    spec = yaml.safe_load(pathlib.Path(sys.argv[1]).read_text())
    test_files = [yaml.safe_load(pathlib.Path(path).read_text()) for path in sys.argv[2:]]
    jobs = [(what, alert, mutant, test_files) for what, alert, mutant in mutants(spec)]
    if not jobs:
        sys.exit("mutate-rules: no burn-rate alert found")
    # The rules as they are must pass: otherwise every mutant would look caught.
    for alert in sorted({alert for _, alert, _, _ in jobs}):
        for tests in test_files:
            failed, by = run(spec, tests, alert)
            if failed:
                sys.exit(f"mutate-rules: the unmutated rules already fail the tests of {alert} ({by})")
    survivors = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for what, caught in pool.map(judge, jobs):
            if caught:
                print(f"[mutate-rules] caught   {what} ({caught})")
            else:
                survivors.append(what)
                print(f"[mutate-rules] SURVIVED {what}")
    if survivors:
        print(f"[mutate-rules] {len(survivors)} of {len(jobs)} mutants pass the tests: add a test that tells them apart", file=sys.stderr)
        sys.exit(1)
    print(f"[mutate-rules] all {len(jobs)} mutants of the burn-rate alerts fail the tests")


if __name__ == "__main__":
    main()
