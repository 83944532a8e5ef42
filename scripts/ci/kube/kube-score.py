#!/usr/bin/env python3
"""Runs kube-score on one rendered manifest file with the settings of kube-score.yaml.

usage: kube-score.py KUBE_SCORE_BINARY RENDERED.yaml

Prints the failing checks (CRITICAL and WARNING lines of kube-score's `ci` output) and exits with
kube-score's status: 1 when any check fails, warnings included.
"""
import pathlib
import subprocess
import sys

import yaml

CONFIG = pathlib.Path(__file__).with_name("kube-score.yaml")


def main():
    binary, rendered = sys.argv[1:3]
    config = yaml.safe_load(CONFIG.read_text())
    docs = [d for d in yaml.safe_load_all(pathlib.Path(rendered).read_text()) if d]
    for rule in config.get("ignoreObjects") or []:
        if not rule.get("reason"):
            sys.exit(f"kube-score.yaml: ignoreObjects {rule['kind']}/{rule['name']} has no reason")
        for doc in docs:
            if doc.get("kind") == rule["kind"] and doc["metadata"].get("name") == rule["name"]:
                notes = doc["metadata"].setdefault("annotations", {})
                notes["kube-score/ignore"] = ",".join(rule["checks"])
    for check, reason in (config.get("ignore") or {}).items():
        if not reason:
            sys.exit(f"kube-score.yaml: ignore {check} has no reason")
    args = [binary, "score", "-", "--output-format", "ci", "--exit-one-on-warning",
            "--kubernetes-version", config["kubernetesVersion"], *config.get("flags", [])]
    if config.get("ignore"):
        args += ["--ignore-test", ",".join(config["ignore"])]
    for check in config.get("enableOptional") or []:
        args += ["--enable-optional-test", check]
    result = subprocess.run(args, input=yaml.safe_dump_all(docs, sort_keys=False), capture_output=True, text=True)
    failed = [line for line in result.stdout.splitlines() if line.startswith(("[CRITICAL]", "[WARNING]"))]
    for line in failed:
        print(f"kube-score: {pathlib.Path(rendered).name}: {line}")
    if result.returncode != 0 and not failed:
        print(result.stdout + result.stderr, end="")
    sys.exit(result.returncode or (1 if failed else 0))


if __name__ == "__main__":
    main()
