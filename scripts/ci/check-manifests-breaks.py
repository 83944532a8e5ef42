#!/usr/bin/env python3
"""Proof that check-manifests.py catches a shutdown timing that does not add up, a heap limit
that is not half the memory limit, and an ingress body size that is not the gateway's.

usage: check-manifests-breaks.py RENDERED_OVERLAY.yaml

Each break edits (or removes) one object of the rendered overlay, which must pass unbroken, and
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


def set_body_size(size):
    def edit(doc):
        doc["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-body-size"] = size
    return edit


# name, kind, object, edit (None: the object removed), text the finding must contain
BREAKS = [
    ("grace longer than the pod's termination period", "Deployment", "webhook-service", set_grace(40_000), "terminationGracePeriodSeconds 30 <"),
    ("termination period shorter than preStop + grace + margin", "Deployment", "webhook-service", set_termination(24), "terminationGracePeriodSeconds 24 < "),
    ("the default termination period (30 s) with a long grace", "Deployment", "gateway", lambda doc: (drop_termination(doc), set_grace(26_000)(doc)), "terminationGracePeriodSeconds 30 <"),
    ("SHUTDOWN_GRACE_MS not set", "Deployment", "operator-service", drop_grace, "SHUTDOWN_GRACE_MS must be set"),
    ("no preStop sleep", "Deployment", "flight-request-service", drop_pre_stop, "no preStop sleep"),
    ("memory limit raised without the heap limit", "Deployment", "flight-request-service", set_memory_limit("1Gi"), "is not half the memory limit 1Gi"),
    ("no heap limit", "Deployment", "gateway", drop_node_options, "NODE_OPTIONS must set --max-old-space-size"),
    ("every path takes the zone import's bodies", "Ingress", "gateway", set_body_size("16m"), "proxy-body-size 16m, but the gateway allows 1048576 bytes"),
    ("the zone import sized at the default", "Ingress", "gateway-zone-import", set_body_size("1m"), "proxy-body-size 1m, but the gateway allows 16777216 bytes"),
    ("the zone import's Ingress removed", "Ingress", "gateway-zone-import", None, "takes /api/zones/import with nginx.ingress.kubernetes.io/proxy-body-size 1m"),
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
    for name, kind, target, edit, expected in BREAKS:
        broken = copy.deepcopy(docs)
        doc = next(doc for doc in broken if doc["kind"] == kind and doc["metadata"]["name"] == target)
        if edit is None:
            broken.remove(doc)
        else:
            edit(doc)
        found = [problem for problem in findings(broken) if expected in problem and (edit is None or f"{kind}/{target}" in problem)]
        print(f"[check-manifests-breaks] {'ok  ' if found else 'FAIL'} {name}{': ' + found[0].split(': ', 1)[1] if found else ''}")
        if not found:
            missed.append(name)
    if missed:
        sys.exit(f"check-manifests.py let through: {', '.join(missed)}")


if __name__ == "__main__":
    main(sys.argv[1])
