#!/usr/bin/env python3
"""Proof that check-manifests.py catches a shutdown timing that does not add up, a heap limit
that is not half the memory limit, and a broker or database that a node loss or a drain can take
below its quorum.

usage: check-manifests-breaks.py RENDERED_OVERLAY.yaml [RENDERED_OVERLAY_WITH_DATA_LAYER.yaml]

Each break edits one object of the rendered overlay that holds it (the data layer's are in the
second file), which must pass unbroken, and check-manifests.py must then fail naming it. Exits 1
naming every break that got through.
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


def preferred_anti_affinity(doc):
    terms = doc["spec"]["affinity"]["podAntiAffinity"].pop("requiredDuringSchedulingIgnoredDuringExecution")
    doc["spec"]["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = [{"weight": 100, "podAffinityTerm": t} for t in terms]


def set_max_unavailable(count):
    def edit(doc):
        doc["spec"]["maxUnavailable"] = count
    return edit


def drop_budget(name):
    def edit(docs):
        docs[:] = [doc for doc in docs if not (doc["kind"] == "PodDisruptionBudget" and doc["metadata"]["name"] == name)]
    return edit


# name, object (kind/name), edit (of that object, or of the whole list when the object is None), text the finding must contain
BREAKS = [
    ("grace longer than the pod's termination period", "webhook-service", set_grace(40_000), "terminationGracePeriodSeconds 30 <"),
    ("termination period shorter than preStop + grace + margin", "webhook-service", set_termination(24), "terminationGracePeriodSeconds 24 < "),
    ("the default termination period (30 s) with a long grace", "gateway", lambda doc: (drop_termination(doc), set_grace(26_000)(doc)), "terminationGracePeriodSeconds 30 <"),
    ("SHUTDOWN_GRACE_MS not set", "operator-service", drop_grace, "SHUTDOWN_GRACE_MS must be set"),
    ("no preStop sleep", "flight-request-service", drop_pre_stop, "no preStop sleep"),
    ("memory limit raised without the heap limit", "flight-request-service", set_memory_limit("1Gi"), "is not half the memory limit 1Gi"),
    ("no heap limit", "gateway", drop_node_options, "NODE_OPTIONS must set --max-old-space-size"),
    ("broker nodes only preferably on separate hosts", "RabbitmqCluster/dfc-rabbitmq", preferred_anti_affinity, "without required pod anti-affinity"),
    ("no disruption budget for the broker", None, drop_budget("dfc-rabbitmq"), "RabbitmqCluster/dfc-rabbitmq: no PodDisruptionBudget"),
    ("a database budget that lets the majority go", "PodDisruptionBudget/dfc-mongodb", set_max_unavailable(2), "lets 2 of 3 down at once"),
]


def findings(docs):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as out:
        yaml.safe_dump_all(docs, out)
        out.flush()
        return check_manifests.check(out.name)


def main(paths):
    overlays = [[doc for doc in yaml.safe_load_all(pathlib.Path(path).read_text()) if doc] for path in paths]
    for docs in overlays:
        unbroken = findings(docs)
        if unbroken:
            sys.exit("check-manifests-breaks: the unbroken overlay fails already:\n  " + "\n  ".join(unbroken))
    missed = []
    for name, target, edit, expected in BREAKS:
        target = target if target is None or "/" in target else f"Deployment/{target}"
        holder = BREAKS_DATA_LAYER_OBJECT if target is None else target
        docs = next((docs for docs in overlays if any(f"{d['kind']}/{d['metadata']['name']}" == holder for d in docs)), None)
        if docs is None:
            print(f"[check-manifests-breaks] FAIL {name}: no rendered overlay holds {holder}")
            missed.append(name)
            continue
        broken = copy.deepcopy(docs)
        if target is None:
            edit(broken)
        else:
            edit(next(d for d in broken if f"{d['kind']}/{d['metadata']['name']}" == target))
        # A Deployment's finding names it; the data layer's name the data service, and the text says which.
        found = [problem for problem in findings(broken) if expected in problem and (not holder.startswith("Deployment/") or f"{holder}:" in problem)]
        print(f"[check-manifests-breaks] {'ok  ' if found else 'FAIL'} {name}{': ' + found[0].split(': ', 1)[1] if found else ''}")
        if not found:
            missed.append(name)
    if missed:
        sys.exit(f"check-manifests.py let through: {', '.join(missed)}")


# The object whose overlay a break on the whole list (target None) edits: the data layer's.
BREAKS_DATA_LAYER_OBJECT = "RabbitmqCluster/dfc-rabbitmq"


if __name__ == "__main__":
    main(sys.argv[1:])
