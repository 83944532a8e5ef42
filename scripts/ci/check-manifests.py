#!/usr/bin/env python3
"""Policy checks on rendered Kubernetes manifests (kustomize build output), beyond schema validation.

usage: check-manifests.py RENDERED.yaml [...]

- Pod Security Standards, "restricted" profile (v1.x, latest), on every pod template of a
  Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob or Pod: the baseline controls
  plus the restricted ones, field by field as the standard lists them.
- Custom resources (no offline schema): apiVersion, kind and metadata.name present.
- The webhook egress NetworkPolicy excepts exactly the ranges the application refuses
  (services/webhook-service/src/domain/endpoint-url.ts).
- Every alert's runbook_url names a page in docs/runbooks/, and has summary and description.
- Every Deployment's containers set SHUTDOWN_GRACE_MS and a preStop sleep, and its
  terminationGracePeriodSeconds covers the longest preStop sleep + grace + SHUTDOWN_MARGIN_SECONDS.
- Every container of the services' image sets V8's heap limit (NODE_OPTIONS=--max-old-space-size)
  to half its memory limit: a heap the pod cannot hold turns collections into OOM kills.
- The replicated data services (RabbitmqCluster, MongoDBCommunity): a RabbitMQ cluster of several
  nodes requires one node per host (required pod anti-affinity on kubernetes.io/hostname selecting
  its own pods), and each has a PodDisruptionBudget selecting its pods that lets at most a minority
  of them down at once (so a drain keeps the quorum).

Exits 1 with one line per violation.
"""
import ipaddress
import pathlib
import json
import re
import subprocess
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILT_IN_GROUPS = {"", "v1", "apps", "batch", "policy", "autoscaling", "networking.k8s.io", "rbac.authorization.k8s.io"}
RESTRICTED_VOLUME_TYPES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"}
SAFE_SYSCTLS = {
    "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
    "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
}
SELINUX_TYPES = {None, "", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}
# Between the grace period's end (the service exits) and the kubelet's SIGKILL: closing connections.
SHUTDOWN_MARGIN_SECONDS = 5
# What Kubernetes uses when a pod spec leaves terminationGracePeriodSeconds out.
DEFAULT_TERMINATION_GRACE_SECONDS = 30


def pod_spec(doc):
    kind, spec = doc.get("kind"), doc.get("spec") or {}
    if kind == "Pod":
        return spec
    if kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"):
        return spec.get("template", {}).get("spec")
    if kind == "CronJob":
        return spec.get("jobTemplate", {}).get("spec", {}).get("template", {}).get("spec")
    return None


def restricted_violations(spec):
    """The controls of the restricted profile (which includes baseline) for one pod spec."""
    out = []
    pod_sc = spec.get("securityContext") or {}
    containers = [("container", c) for c in spec.get("containers") or []]
    containers += [("initContainer", c) for c in spec.get("initContainers") or []]
    containers += [("ephemeralContainer", c) for c in spec.get("ephemeralContainers") or []]
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(field):
            out.append(f"{field} is true")
    if (pod_sc.get("windowsOptions") or {}).get("hostProcess"):
        out.append("pod windowsOptions.hostProcess is true")
    for volume in spec.get("volumes") or []:
        types = set(volume) - {"name"}
        if not types <= RESTRICTED_VOLUME_TYPES:
            out.append(f"volume {volume.get('name')} has a type the restricted profile forbids: {sorted(types - RESTRICTED_VOLUME_TYPES)}")
    for sysctl in pod_sc.get("sysctls") or []:
        if sysctl.get("name") not in SAFE_SYSCTLS:
            out.append(f"sysctl {sysctl.get('name')} is not in the safe set")
    if (pod_sc.get("seLinuxOptions") or {}).get("type") not in SELINUX_TYPES or {"user", "role"} & set(pod_sc.get("seLinuxOptions") or {}):
        out.append("pod seLinuxOptions not allowed")
    if pod_sc.get("runAsUser") == 0:
        out.append("pod runAsUser is 0")
    pod_seccomp = (pod_sc.get("seccompProfile") or {}).get("type")
    if pod_seccomp not in (None, "RuntimeDefault", "Localhost"):
        out.append(f"pod seccompProfile.type is {pod_seccomp}")
    for role, c in containers:
        name = f"{role} {c.get('name')}"
        sc = c.get("securityContext") or {}
        if sc.get("privileged"):
            out.append(f"{name}: privileged")
        if (sc.get("windowsOptions") or {}).get("hostProcess"):
            out.append(f"{name}: windowsOptions.hostProcess")
        if any(p.get("hostPort") for p in c.get("ports") or []):
            out.append(f"{name}: hostPort")
        if sc.get("procMount") not in (None, "Default"):
            out.append(f"{name}: procMount {sc.get('procMount')}")
        if (sc.get("seLinuxOptions") or {}).get("type") not in SELINUX_TYPES or {"user", "role"} & set(sc.get("seLinuxOptions") or {}):
            out.append(f"{name}: seLinuxOptions not allowed")
        apparmor = (sc.get("appArmorProfile") or {}).get("type")
        if apparmor not in (None, "RuntimeDefault", "Localhost"):
            out.append(f"{name}: appArmorProfile.type {apparmor}")
        if sc.get("allowPrivilegeEscalation") is not False:
            out.append(f"{name}: allowPrivilegeEscalation must be false")
        caps = sc.get("capabilities") or {}
        if "ALL" not in (caps.get("drop") or []):
            out.append(f"{name}: capabilities.drop must include ALL")
        if set(caps.get("add") or []) - {"NET_BIND_SERVICE"}:
            out.append(f"{name}: capabilities.add may only hold NET_BIND_SERVICE")
        run_as_non_root = sc.get("runAsNonRoot", pod_sc.get("runAsNonRoot"))
        if run_as_non_root is not True:
            out.append(f"{name}: runAsNonRoot must be true (pod or container)")
        if sc.get("runAsUser") == 0:
            out.append(f"{name}: runAsUser is 0")
        seccomp = (sc.get("seccompProfile") or {}).get("type", pod_seccomp)
        if seccomp not in ("RuntimeDefault", "Localhost"):
            out.append(f"{name}: seccompProfile.type must be RuntimeDefault or Localhost (pod or container)")
    return out


# What the egress policy must refuse at the least, whatever else it does: private, loopback,
# link-local (the cloud metadata services), CGNAT, unique-local and link-local IPv6.
REQUIRED_EXCEPTS = {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "127.0.0.0/8", "169.254.0.0/16", "100.64.0.0/10", "fc00::/7", "fe80::/10"}


def app_classes(addresses):
    """How webhook-service's own rule (services/webhook-service/src/domain/target-address.ts) classes each address."""
    script = (
        "import { classifyAddress } from './services/webhook-service/src/domain/target-address.ts';"
        "process.stdout.write(JSON.stringify(JSON.parse(process.argv[1]).map((a) => classifyAddress(a) ?? null)));"
    )
    result = subprocess.run(["npx", "--no-install", "tsx", "--eval", script, json.dumps(addresses)], cwd=ROOT, capture_output=True, text=True, check=True)
    return dict(zip(addresses, json.loads(result.stdout)))


def check_webhook_egress(policy):
    """Every range the policy excepts is one the application refuses too (judged at both ends), and the essentials are excepted.
    The policy may be stricter than the application where a CIDR cannot say what the application judges by the IPv4
    address an IPv6 form carries (IPv4-mapped, NAT64)."""
    excepted = set()
    for rule in policy["spec"].get("egress") or []:
        for peer in rule.get("to") or []:
            excepted |= {str(ipaddress.ip_network(cidr)) for cidr in (peer.get("ipBlock") or {}).get("except") or []}
    out = []
    if REQUIRED_EXCEPTS - excepted:
        out.append(f"webhook-egress does not except ranges no webhook may reach: {sorted(REQUIRED_EXCEPTS - excepted)}")
    ends = {cidr: [str(ipaddress.ip_network(cidr)[0]), str(ipaddress.ip_network(cidr)[-1])] for cidr in sorted(excepted)}
    classes = app_classes(sorted({address for pair in ends.values() for address in pair}))
    allowed = [cidr for cidr, pair in ends.items() if any(classes[address] == "public" for address in pair)]
    if allowed:
        out.append(f"webhook-egress excepts ranges the application allows: {allowed}")
    return out


def check_alerts(rule):
    out = []
    for group in rule["spec"]["groups"]:
        for r in group["rules"]:
            if "alert" not in r:
                continue
            notes = r.get("annotations") or {}
            for key in ("summary", "description", "runbook_url"):
                if not notes.get(key):
                    out.append(f"alert {r['alert']}: no {key}")
            page = (notes.get("runbook_url") or "").rsplit("/docs/runbooks/", 1)[-1]
            if page != f"{r['alert']}.md" or not (ROOT / "docs/runbooks" / page).is_file():
                out.append(f"alert {r['alert']}: runbook_url must point at docs/runbooks/{r['alert']}.md, which must exist")
    return out


def check_shutdown(spec):
    """The kubelet must not kill a pod before its preStop sleep and the service's own grace period are over."""
    out, needed = [], 0
    for c in spec.get("containers") or []:
        env = {e.get("name"): e.get("value") for e in c.get("env") or []}
        sleep = (((c.get("lifecycle") or {}).get("preStop") or {}).get("sleep") or {}).get("seconds")
        grace_ms = env.get("SHUTDOWN_GRACE_MS")
        if sleep is None:
            out.append(f"container {c.get('name')}: no preStop sleep (endpoints must drop the pod before SIGTERM)")
        if grace_ms is None or not str(grace_ms).isdigit():
            out.append(f"container {c.get('name')}: SHUTDOWN_GRACE_MS must be set to a number of milliseconds")
            continue
        needed = max(needed, (sleep or 0) + -(-int(grace_ms) // 1000) + SHUTDOWN_MARGIN_SECONDS)
    granted = spec.get("terminationGracePeriodSeconds", DEFAULT_TERMINATION_GRACE_SECONDS)
    if granted < needed:
        out.append(f"terminationGracePeriodSeconds {granted} < preStop sleep + SHUTDOWN_GRACE_MS + {SHUTDOWN_MARGIN_SECONDS} s = {needed}")
    return out


MEMORY_UNITS_MIB = {"Mi": 1, "Gi": 1024, "M": 1e6 / 2**20, "G": 1e9 / 2**20}


def check_heap(spec):
    """A service container's heap limit is half its memory limit, so that raising one without the other fails."""
    out = []
    for c in spec.get("containers") or []:
        if not any(str(arg).startswith("services/") for arg in c.get("args") or []):
            continue
        env = {e.get("name"): e.get("value") for e in c.get("env") or []}
        limit = str(((c.get("resources") or {}).get("limits") or {}).get("memory", ""))
        size = re.fullmatch(r"(\d+)(Mi|Gi|M|G)", limit)
        heap = re.search(r"(?:^|\s)--max-old-space-size=(\d+)(?:\s|$)", env.get("NODE_OPTIONS") or "")
        if size is None:
            out.append(f"container {c.get('name')}: no memory limit in Mi or Gi")
        elif heap is None:
            out.append(f"container {c.get('name')}: NODE_OPTIONS must set --max-old-space-size (half the memory limit)")
        elif int(heap.group(1)) != int(int(size.group(1)) * MEMORY_UNITS_MIB[size.group(2)] // 2):
            out.append(f"container {c.get('name')}: --max-old-space-size={heap.group(1)} is not half the memory limit {limit}")
    return out


def selects(selector, labels):
    """A label selector (matchLabels, matchExpressions) against a pod's labels."""
    selector = selector or {}
    if any(labels.get(key) != value for key, value in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values") or []
        if operator == "In" and labels.get(key) not in values or operator == "NotIn" and labels.get(key) in values:
            return False
        if operator == "Exists" and key not in labels or operator == "DoesNotExist" and key in labels:
            return False
    return bool(selector.get("matchLabels") or selector.get("matchExpressions"))


def data_service_pods(doc):
    """(labels of its pods, how many) for the custom resources whose operators run replicated pods (scripts/ci/kube/wiring.yaml)."""
    name, spec = doc["metadata"]["name"], doc.get("spec") or {}
    if doc.get("kind") == "RabbitmqCluster":
        return {"app.kubernetes.io/name": name, "app.kubernetes.io/component": "rabbitmq", "app.kubernetes.io/part-of": "rabbitmq"}, spec.get("replicas", 1)
    if doc.get("kind") == "MongoDBCommunity":
        return {"app": f"{name}-svc"}, spec.get("members", 1)
    return None


def check_data_services(docs):
    out = []
    budgets = [d for d in docs if d.get("kind") == "PodDisruptionBudget"]
    for doc in docs:
        pods = data_service_pods(doc)
        if pods is None:
            continue
        labels, count = pods
        if count < 2:
            continue
        what = f"{doc['kind']}/{doc['metadata']['name']}"
        namespace = (doc.get("metadata") or {}).get("namespace")
        if doc["kind"] == "RabbitmqCluster":
            terms = ((doc["spec"].get("affinity") or {}).get("podAntiAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or []
            if not any(t.get("topologyKey") == "kubernetes.io/hostname" and selects(t.get("labelSelector"), labels) for t in terms):
                out.append(f"{what}: {count} nodes without required pod anti-affinity on kubernetes.io/hostname selecting its pods")
        mine = [b for b in budgets if (b.get("metadata") or {}).get("namespace") == namespace and selects((b.get("spec") or {}).get("selector"), labels)]
        if not mine:
            out.append(f"{what}: no PodDisruptionBudget selects its pods")
        minority = (count - 1) // 2
        for budget in mine:
            spec = budget.get("spec") or {}
            allowed = spec["maxUnavailable"] if "maxUnavailable" in spec else count - spec.get("minAvailable", 0)
            if not isinstance(allowed, int) or allowed > minority or allowed < 1:
                out.append(f"{what}: PodDisruptionBudget/{budget['metadata']['name']} lets {allowed} of {count} down at once (between 1 and {minority} keeps the quorum and lets a drain proceed)")
    return out


def check(path):
    problems = []
    docs = [doc for doc in yaml.safe_load_all(pathlib.Path(path).read_text()) if doc]
    problems += [f"{path}: {v}" for v in check_data_services(docs)]
    for doc in docs:
        if not doc:
            continue
        what = f"{path}: {doc.get('kind')}/{(doc.get('metadata') or {}).get('name')}"
        group = str(doc.get("apiVersion", "")).rpartition("/")[0]
        if group not in BUILT_IN_GROUPS and not (doc.get("kind") and (doc.get("metadata") or {}).get("name")):
            problems.append(f"{what}: custom resource without kind or name")
        spec = pod_spec(doc)
        if spec is not None:
            problems += [f"{what}: {v}" for v in restricted_violations(spec)]
            problems += [f"{what}: {v}" for v in check_heap(spec)]
        if doc.get("kind") == "Deployment":
            problems += [f"{what}: {v}" for v in check_shutdown(spec)]
        if doc.get("kind") == "NetworkPolicy" and doc["metadata"]["name"] == "webhook-egress":
            problems += [f"{what}: {v}" for v in check_webhook_egress(doc)]
        if doc.get("kind") == "PrometheusRule":
            problems += [f"{what}: {v}" for v in check_alerts(doc)]
    return problems


if __name__ == "__main__":
    found = [problem for path in sys.argv[1:] for problem in check(path)]
    for problem in found:
        print(problem)
    sys.exit(1 if found else 0)
