#!/usr/bin/env python3
"""Proof that check-manifests.py catches a shutdown timing that does not add up, and a heap limit
that is not half the memory limit.

usage: check-manifests-breaks.py RENDERED_OVERLAY.yaml

Each break edits one Deployment of the rendered overlay, which must pass unbroken, and
check-manifests.py must then fail naming it. Exits 1 naming every break that got through.
"""
import copy
import importlib.util
import pathlib
import sys
import tempfile

import yaml

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("check_manifests", HERE / "check-manifests.py")
check_manifests = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_manifests)


def container(doc):
    return doc["spec"]["template"]["spec"]["containers"][0]


def set_grace(ms):
    def edit(doc):
        for env in container(doc)["env"]:
            if env["name"] == "SHUTDOWN_GRACE_MS":
                env["value"] = str(ms)
    return edit


def drop_grace(doc):
    container(doc)["env"] = [env for env in container(doc)["env"] if env["name"] != "SHUTDOWN_GRACE_MS"]


def drop_pre_stop(doc):
    container(doc).pop("lifecycle")


def set_termination(seconds):
    def edit(doc):
        doc["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = seconds
    return edit


def drop_termination(doc):
    doc["spec"]["template"]["spec"].pop("terminationGracePeriodSeconds")


def set_memory_limit(quantity):
    def edit(doc):
        container(doc)["resources"]["limits"]["memory"] = quantity
    return edit


def drop_node_options(doc):
    container(doc)["env"] = [env for env in container(doc)["env"] if env["name"] != "NODE_OPTIONS"]


# name, Deployment, edit, text the finding must contain
BREAKS = [
    ("grace longer than the pod's termination period", "webhook-service", set_grace(40_000), "terminationGracePeriodSeconds 30 <"),
    ("termination period shorter than preStop + grace + margin", "webhook-service", set_termination(24), "terminationGracePeriodSeconds 24 < "),
    ("the default termination period (30 s) with a long grace", "gateway", lambda doc: (drop_termination(doc), set_grace(26_000)(doc)), "terminationGracePeriodSeconds 30 <"),
    ("SHUTDOWN_GRACE_MS not set", "operator-service", drop_grace, "SHUTDOWN_GRACE_MS must be set"),
    ("no preStop sleep", "flight-request-service", drop_pre_stop, "no preStop sleep"),
    ("memory limit raised without the heap limit", "flight-request-service", set_memory_limit("1Gi"), "is not half the memory limit 1Gi"),
    ("no heap limit", "gateway", drop_node_options, "NODE_OPTIONS must set --max-old-space-size"),
]


def findings(docs):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as out:
        yaml.safe_dump_all(docs, out)
        out.flush()
        return check_manifests.check(out.name)


def main(path):
    docs = [doc for doc in yaml.safe_load_all(pathlib.Path(path).read_text()) if doc]
    unbroken = findings(docs)
    if unbroken:
        sys.exit("check-manifests-breaks: the unbroken overlay fails already:\n  " + "\n  ".join(unbroken))
    missed = []
    for name, deployment, edit, expected in BREAKS:
        broken = copy.deepcopy(docs)
        edit(next(doc for doc in broken if doc["kind"] == "Deployment" and doc["metadata"]["name"] == deployment))
        found = [problem for problem in findings(broken) if f"Deployment/{deployment}:" in problem and expected in problem]
        print(f"[check-manifests-breaks] {'ok  ' if found else 'FAIL'} {name}{': ' + found[0].split(': ', 1)[1] if found else ''}")
        if not found:
            missed.append(name)
    if missed:
        sys.exit(f"check-manifests.py let through: {', '.join(missed)}")


if __name__ == "__main__":
    main(sys.argv[1])
