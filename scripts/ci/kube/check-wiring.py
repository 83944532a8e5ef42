#!/usr/bin/env python3
"""How the rendered manifests of one overlay refer to each other, where kube-score does not look.

usage: check-wiring.py --overlay NAME [--public-paths PATHS.json] RENDERED.yaml

Pods are the pod templates of the workloads, plus the pods the operators create from custom
resources (RabbitmqCluster, MongoDBCommunity: wiring.yaml "operatorPods"). Checks, by id:

  service-selector       a Service's selector matches a pod
  service-target-port    a Service port's targetPort is a container port of every pod it selects
  ingress-backend        an Ingress backend names an existing Service and one of its ports
  ingress-public-path    every public path (the OpenAPI document's, their /api/v1 aliases and
                         wiring.yaml's alsoPublic) is routed by an Ingress to the public Service
  servicemonitor-selector  a ServiceMonitor selects a Service
  servicemonitor-port    each endpoint's port is a port name of every Service it selects
                         (targetPort: a container port of their pods)
  servicemonitor-joblabel  the jobLabel is a label of every Service it selects (the alerts' job=)
  podmonitor-selector, podmonitor-port   the same for PodMonitors and container port names
  networkpolicy-selector a NetworkPolicy's podSelector matches a pod
  networkpolicy-peer     a from/to peer with a podSelector and no namespaceSelector matches a pod
  networkpolicy-port     a named port of an ingress rule is a container port of a pod the policy
                         selects; of an egress rule, of a pod its peers select
  pdb-selector           a PodDisruptionBudget selects a pod
  hpa-target             a HorizontalPodAutoscaler's scaleTargetRef exists
  probe-port             a probe's named port is a port of its container
  service-account        a pod's serviceAccountName exists (unless "default")
  configmap-ref          a non-optional ConfigMap a pod reads is in the manifests
  issuer-ref             a cert-manager Certificate's Issuer is in the manifests (ClusterIssuers
                         are not checked), and a CA Issuer's secret is a Certificate's
  image-digest           every container image of every workload is pinned by digest (@sha256:...),
                         in the overlays listed in wiring.yaml "imageDigest"
  hpa-queue              an HPA External metric that selects a `queue` label names a durable queue
                         a service declares (its `Queues` in services/<service>/src/messaging.ts)
  hpa-metric             an HPA External metric whose name starts with a service's prefix
                         (webhook_, gateway_, …) is one that service exports (a metric `name:` in
                         services/<service>/src)
  sync-order             Argo CD order (hook phase PreSync < Sync < PostSync, then sync-wave): every
                         ConfigMap a Job reads and every custom resource whose operator makes a
                         Secret it reads (Certificate, MongoDBCommunity users, RabbitmqCluster) is
                         applied before it, and every Deployment after the migration Jobs
                         (app.kubernetes.io/component=migration); a first install works in one sync
  data-egress            the (CIDR, port) pairs outside the cluster that NetworkPolicies let a pod
                         reach on explicit ports: every database client (a container reading
                         MONGO_URL[_FILE], or a variable named for a use of it such as RATE_LIMIT_MONGO_URL) reaches exactly the overlay's configured database pairs,
                         every broker client (AMQP_URL[_FILE]) exactly the broker pairs, and no
                         other pod any of them (wiring.yaml "dataEgress": the overlay's file of
                         managed data services, or none)

A finding listed in wiring.yaml "allow" (with its reason) is reported as accepted and does not
fail. Exits 1 with one line per finding.
"""
import argparse
import json
import pathlib
import re
import sys

import yaml

CONFIG = pathlib.Path(__file__).with_name("wiring.yaml")
ROOT = pathlib.Path(__file__).resolve().parents[3]
WORKLOADS = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod")


# ---------------------------------------------------------------------------------------------
# The model: pods, services, and label selectors.

class Pod:
    def __init__(self, owner, namespace, labels, spec=None, ports=None):
        self.owner, self.namespace, self.labels, self.spec = owner, namespace, labels or {}, spec or {}
        self.ports = ports if ports is not None else {
            p["name"]: p["containerPort"]
            for c in self.spec.get("containers") or [] for p in c.get("ports") or [] if p.get("name")}
        self.port_numbers = set(self.ports.values()) | {
            p["containerPort"] for c in self.spec.get("containers") or [] for p in c.get("ports") or []}


def pod_template(doc):
    kind, spec = doc["kind"], doc.get("spec") or {}
    if kind == "Pod":
        return doc.get("metadata") or {}, spec
    if kind == "CronJob":
        spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    template = spec.get("template") or {}
    return template.get("metadata") or {}, template.get("spec") or {}


def operator_pods(doc, config):
    model = (config.get("operatorPods") or {}).get(doc["kind"])
    if not model:
        return []
    name = doc["metadata"]["name"]
    labels = {k: str(v).replace("{name}", name) for k, v in model["labels"].items()}
    return [Pod(f"{doc['kind']}/{name} (its operator's pods)", ns(doc), labels, ports=dict(model.get("ports") or {}))]


def ns(doc):
    return (doc.get("metadata") or {}).get("namespace", "default")


def ref(doc):
    return f"{doc['kind']}/{doc['metadata']['name']}"


def matches(selector, labels):
    """A LabelSelector ({matchLabels, matchExpressions}) against a label map; None selects nothing."""
    if selector is None:
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr["key"], expr["operator"], expr.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def show(selector):
    if selector is None:
        return "(none)"
    if set(selector) <= {"matchLabels"}:
        return json.dumps(selector.get("matchLabels") or {}, sort_keys=True)
    return json.dumps(selector, sort_keys=True)


# ---------------------------------------------------------------------------------------------
# Ingress paths (networking.k8s.io/v1 semantics).

def path_matches(rule_path, path_type, path):
    if path_type == "Exact":
        return path == rule_path
    # Prefix (and ImplementationSpecific, which ingress-nginx treats as a prefix): element-wise.
    prefix = [p for p in rule_path.split("/") if p]
    parts = [p for p in path.split("/") if p]
    return parts[:len(prefix)] == prefix


def route(ingresses, path):
    """The backend the longest matching path of any Ingress rule sends `path` to, per rule host."""
    found = []
    for ing in ingresses:
        for rule in ing["spec"].get("rules") or []:
            best = None
            for p in (rule.get("http") or {}).get("paths") or []:
                if path_matches(p.get("path", "/"), p.get("pathType", "Prefix"), path):
                    rank = (p.get("pathType") == "Exact", len(p.get("path", "/")))
                    if best is None or rank > best[0]:
                        best = (rank, p["backend"])
            if best:
                found.append((rule.get("host", "*"), ref(ing), best[1]))
    return found


def public_paths(openapi_paths, also):
    out = []
    for path in openapi_paths:
        concrete = "/".join("x" if part.startswith("{") else part for part in path.split("/"))
        out.append(concrete)
        if concrete.startswith("/api/") and not concrete.startswith("/api/v1/"):
            out.append("/api/v1/" + concrete[len("/api/"):])
    return sorted(set(out) | set(also))


# ---------------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------------
# Egress to the managed data services.

DATA_ROLES = {"database": ("MONGO_URL", "database-egress-managed"), "broker": ("AMQP_URL", "broker-egress-managed")}


def ip_port_pairs(policy):
    """(cidr, port) of the egress rules with ipBlock peers and explicit numeric ports."""
    pairs = set()
    for rule in (policy.get("spec") or {}).get("egress") or []:
        ports = [p.get("port") for p in rule.get("ports") or []]
        if not ports or any(not isinstance(p, int) for p in ports):
            continue  # any port (webhook deliveries) or named ports (pods): not a data service rule
        for peer in rule.get("to") or []:
            if peer.get("ipBlock"):
                pairs |= {(peer["ipBlock"]["cidr"], p) for p in ports}
    return pairs


def configured_data_egress(setting):
    """The pairs an overlay's data-services file declares, per role; none: no managed services."""
    wanted = {role: set() for role in DATA_ROLES}
    if setting in (None, "none"):
        return wanted
    path = ROOT / setting
    for doc in yaml.safe_load_all(path.read_text()):
        for role, (_, policy) in DATA_ROLES.items():
            if doc and doc.get("kind") == "NetworkPolicy" and doc["metadata"]["name"] == policy:
                wanted[role] |= ip_port_pairs(doc)
    return wanted


def show_pairs(pairs):
    return ", ".join(f"{cidr}:{port}" for cidr, port in sorted(pairs)) or "none"


def reads(env, variable):
    """Whether a container reads a data service's address: the variable itself, or one named for a use of it (RATE_LIMIT_MONGO_URL), either given as a file."""
    return any(name.removesuffix("_FILE") == variable or name.removesuffix("_FILE").endswith(f"_{variable}") for name in env)


def check_data_egress(docs, pods, setting, fail):
    wanted = configured_data_egress(setting)
    policies = [d for d in docs if d["kind"] == "NetworkPolicy"]
    every = set().union(*wanted.values(), *(ip_port_pairs(p) for p in policies if p["metadata"]["name"] in {v[1] for v in DATA_ROLES.values()}))
    for pod in pods:
        if not pod.spec:
            continue  # the operators' pods
        env = {e["name"] for c in pod.spec.get("containers") or [] for e in c.get("env") or []}
        allowed = set()
        for policy in policies:
            if policy["metadata"].get("namespace", "default") == pod.namespace and matches(policy["spec"].get("podSelector", {}), pod.labels):
                allowed |= ip_port_pairs(policy)
        allowed &= every
        should = set().union(*(wanted[role] for role, (variable, _) in DATA_ROLES.items() if reads(env, variable)))
        if allowed != should:
            missing, extra = should - allowed, allowed - should
            fail("data-egress", pod.owner, "; ".join(filter(None, [
                missing and f"cannot reach the configured data service(s) {show_pairs(missing)}",
                extra and f"may reach {show_pairs(extra)}, which it does not use or the overlay does not configure ({setting or 'none'})"])))


# ---------------------------------------------------------------------------------------------
# Argo CD's order of a sync.

PHASES = {"PreSync": 0, "Sync": 1, "PostSync": 2}


def sync_position(doc):
    notes = doc["metadata"].get("annotations") or {}
    hook = notes.get("argocd.argoproj.io/hook", "Sync").split(",")[0].strip()
    return PHASES.get(hook, 1), int(notes.get("argocd.argoproj.io/sync-wave", "0"))


def show_position(position):
    phase = next(name for name, value in PHASES.items() if value == position[0])
    return f"{phase} wave {position[1]}"


def secret_producers(docs):
    """Secret name -> the custom resource whose operator creates it."""
    out = {}
    for doc in docs:
        spec = doc.get("spec") or {}
        if doc["kind"] == "Certificate" and spec.get("secretName"):
            out[spec["secretName"]] = doc
        elif doc["kind"] == "MongoDBCommunity":
            for user in spec.get("users") or []:
                if user.get("connectionStringSecretName"):
                    out[user["connectionStringSecretName"]] = doc
        elif doc["kind"] == "RabbitmqCluster":
            out[f"{doc['metadata']['name']}-default-user"] = doc
    return out


def pod_references(spec):
    """(kind, name) of the ConfigMaps and Secrets a pod spec reads."""
    refs = set()
    for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        for source in c.get("envFrom") or []:
            for kind, key in (("ConfigMap", "configMapRef"), ("Secret", "secretRef")):
                if source.get(key):
                    refs.add((kind, source[key]["name"]))
        for env in c.get("env") or []:
            for kind, key in (("ConfigMap", "configMapKeyRef"), ("Secret", "secretKeyRef")):
                if (env.get("valueFrom") or {}).get(key):
                    refs.add((kind, env["valueFrom"][key]["name"]))
    for volume in spec.get("volumes") or []:
        for source in [volume] + list((volume.get("projected") or {}).get("sources") or []):
            if source.get("configMap"):
                refs.add(("ConfigMap", source["configMap"]["name"]))
            if source.get("secret"):
                refs.add(("Secret", source["secret"].get("secretName") or source["secret"].get("name")))
    return refs


def check_sync_order(docs, fail):
    config_maps = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ConfigMap"}
    producers = secret_producers(docs)
    migrations = [d for d in docs if d["kind"] == "Job" and (d["metadata"].get("labels") or {}).get("app.kubernetes.io/component") == "migration"]
    for doc in docs:
        if doc["kind"] not in WORKLOADS:
            continue
        position = sync_position(doc)
        _, spec = pod_template(doc)
        if doc["kind"] in ("Job", "Pod"):
            for kind, name in sorted(pod_references(spec)):
                dependency = config_maps.get(name) if kind == "ConfigMap" else producers.get(name)
                if dependency is not None and sync_position(dependency) >= position:
                    made = "" if kind == "ConfigMap" else f" (made by {ref(dependency)})"
                    fail("sync-order", ref(doc), f"{show_position(position)} reads {kind} {name}{made}, applied at {show_position(sync_position(dependency))}, not before it: a first install waits for what comes later")
        elif doc["kind"] == "Deployment":  # a CronJob (the backup) runs on its schedule, needs no index
            for job in migrations:
                if sync_position(job) >= position:
                    fail("sync-order", ref(doc), f"{show_position(position)} is not after {ref(job)} ({show_position(sync_position(job))}): it would roll out before its migration")


def check(docs, config, openapi_paths, overlay=None):
    findings = []  # (check, object, detail, message)

    def fail(check_id, obj, message, detail=None):
        findings.append((check_id, obj, detail, message))

    pods = []
    for doc in docs:
        if doc["kind"] in WORKLOADS:
            meta, spec = pod_template(doc)
            pods.append(Pod(ref(doc), ns(doc), meta.get("labels"), spec))
        pods += operator_pods(doc, config)
    by_kind = {}
    for doc in docs:
        by_kind.setdefault(doc["kind"], []).append(doc)
    services = {(ns(s), s["metadata"]["name"]): s for s in by_kind.get("Service", [])}

    def pods_of_service(svc):
        selector = (svc.get("spec") or {}).get("selector")
        return [p for p in pods if p.namespace == ns(svc) and selector and matches({"matchLabels": selector}, p.labels)]

    # Services.
    for svc in by_kind.get("Service", []):
        spec = svc.get("spec") or {}
        if spec.get("type") == "ExternalName" or not spec.get("selector"):
            continue
        selected = pods_of_service(svc)
        if not selected:
            fail("service-selector", ref(svc), f"selector {show({'matchLabels': spec['selector']})} matches no pod")
            continue
        for port in spec.get("ports") or []:
            target = port.get("targetPort", port.get("port"))
            for pod in selected:
                if isinstance(target, str) and target not in pod.ports:
                    fail("service-target-port", ref(svc),
                         f"port {port.get('name', port['port'])}: targetPort {target!r} is not a container port name of {pod.owner} (ports: {', '.join(pod.ports) or 'none'})")
                elif isinstance(target, int) and pod.port_numbers and target not in pod.port_numbers:
                    fail("service-target-port", ref(svc),
                         f"port {port.get('name', port['port'])}: targetPort {target} is not a container port of {pod.owner} ({sorted(pod.port_numbers)})")

    def service_port(namespace, name, port, where, check_id):
        svc = services.get((namespace, name))
        if svc is None:
            fail(check_id, where, f"backend Service {name!r} does not exist")
            return None
        ports = (svc.get("spec") or {}).get("ports") or []
        if not any(("name" in port and p.get("name") == port["name"]) or ("number" in port and p.get("port") == port["number"]) for p in ports):
            fail(check_id, where, f"backend Service {name!r} has no port {port.get('name', port.get('number'))!r} (ports: {', '.join(str(p.get('name', p['port'])) for p in ports)})")
            return None
        return svc

    # Ingresses: backends, then the public paths.
    ingresses = by_kind.get("Ingress", [])
    for ing in ingresses:
        backends = []
        if (ing["spec"].get("defaultBackend") or {}).get("service"):
            backends.append(("defaultBackend", ing["spec"]["defaultBackend"]))
        for rule in ing["spec"].get("rules") or []:
            for p in (rule.get("http") or {}).get("paths") or []:
                backends.append((f"{rule.get('host', '*')}{p.get('path', '')}", p["backend"]))
        for where, backend in backends:
            if backend.get("service"):
                service_port(ns(ing), backend["service"]["name"], backend["service"].get("port") or {}, f"{ref(ing)} {where}", "ingress-backend")
    api = config.get("publicApi")
    if api and openapi_paths is not None:
        unrouted, misrouted = [], {}
        for path in public_paths(openapi_paths, api.get("alsoPublic") or []):
            routes = route(ingresses, path)
            if not routes:
                unrouted.append(path)
            for host, ing, backend in routes:
                svc = backend.get("service") or {}
                port = svc.get("port") or {}
                if svc.get("name") != api["service"] or port.get("name", port.get("number")) != api["port"]:
                    to = f"{svc.get('name')}:{port.get('name', port.get('number'))}"
                    misrouted.setdefault((ing, host, to), []).append(path)
        if unrouted:
            fail("ingress-public-path", "Ingress",
                 f"{len(unrouted)} public path(s) routed by no Ingress rule: {', '.join(unrouted)}")
        for (ing, host, to), paths in misrouted.items():
            fail("ingress-public-path", ing,
                 f"{len(paths)} public path(s) on host {host} go to {to}, not {api['service']}:{api['port']}: {', '.join(paths)}")

    # ServiceMonitors and PodMonitors.
    def in_namespaces(monitor, namespace):
        selector = (monitor.get("spec") or {}).get("namespaceSelector") or {}
        if selector.get("any"):
            return True
        return namespace in (selector.get("matchNames") or [ns(monitor)])

    for sm in by_kind.get("ServiceMonitor", []):
        spec = sm.get("spec") or {}
        selected = [s for s in services.values() if in_namespaces(sm, ns(s)) and matches(spec.get("selector"), (s["metadata"].get("labels") or {}))]
        if not selected:
            fail("servicemonitor-selector", ref(sm), f"selector {show(spec.get('selector'))} matches no Service")
            continue
        for i, endpoint in enumerate(spec.get("endpoints") or []):
            for svc in selected:
                if "port" in endpoint:
                    names = [p.get("name") for p in svc["spec"].get("ports") or []]
                    if endpoint["port"] not in names:
                        fail("servicemonitor-port", ref(sm),
                             f"endpoint {i}: port {endpoint['port']!r} is not a port name of {ref(svc)} (ports: {', '.join(map(str, names))}): it would not be scraped")
                elif isinstance(endpoint.get("targetPort"), str):
                    for pod in pods_of_service(svc):
                        if endpoint["targetPort"] not in pod.ports:
                            fail("servicemonitor-port", ref(sm), f"endpoint {i}: targetPort {endpoint['targetPort']!r} is not a container port name of {pod.owner}")
        if spec.get("jobLabel"):
            for svc in selected:
                if spec["jobLabel"] not in (svc["metadata"].get("labels") or {}):
                    fail("servicemonitor-joblabel", ref(sm), f"jobLabel {spec['jobLabel']!r} is not a label of {ref(svc)}: its job label would be the Service name")

    for pm in by_kind.get("PodMonitor", []):
        spec = pm.get("spec") or {}
        selected = [p for p in pods if in_namespaces(pm, p.namespace) and matches(spec.get("selector"), p.labels)]
        if not selected:
            fail("podmonitor-selector", ref(pm), f"selector {show(spec.get('selector'))} matches no pod")
            continue
        for i, endpoint in enumerate(spec.get("podMetricsEndpoints") or []):
            if "port" in endpoint:
                for pod in selected:
                    if endpoint["port"] not in pod.ports:
                        fail("podmonitor-port", ref(pm), f"endpoint {i}: port {endpoint['port']!r} is not a container port name of {pod.owner} (ports: {', '.join(pod.ports) or 'none'})")

    # NetworkPolicies.
    for np in by_kind.get("NetworkPolicy", []):
        spec = np.get("spec") or {}
        selected = [p for p in pods if p.namespace == ns(np) and matches(spec.get("podSelector", {}), p.labels)]
        if not selected:
            fail("networkpolicy-selector", ref(np), f"podSelector {show(spec.get('podSelector'))} matches no pod")
        for direction, peers_key in (("ingress", "from"), ("egress", "to")):
            for i, rule in enumerate(spec.get(direction) or []):
                peer_pods, only_local_peers = [], True
                for peer in rule.get(peers_key) or []:
                    if "podSelector" in peer and "namespaceSelector" not in peer:
                        hits = [p for p in pods if p.namespace == ns(np) and matches(peer["podSelector"], p.labels)]
                        if not hits:
                            fail("networkpolicy-peer", ref(np), f"{direction}[{i}] {peers_key} podSelector {show(peer['podSelector'])} matches no pod in the namespace",
                                 detail=peer["podSelector"].get("matchLabels") if set(peer["podSelector"]) == {"matchLabels"} else peer["podSelector"])
                        peer_pods += hits
                    else:
                        only_local_peers = False
                if not rule.get(peers_key):
                    only_local_peers = False
                for port in rule.get("ports") or []:
                    if not isinstance(port.get("port"), str):
                        continue
                    if direction == "ingress":
                        if selected and not any(port["port"] in p.ports for p in selected):
                            fail("networkpolicy-port", ref(np), f"ingress[{i}]: named port {port['port']!r} is not a container port of any pod the policy selects")
                    elif only_local_peers and peer_pods and not any(port["port"] in p.ports for p in peer_pods):
                        fail("networkpolicy-port", ref(np), f"egress[{i}]: named port {port['port']!r} is not a container port of any pod its peers select")

    # PodDisruptionBudgets and HorizontalPodAutoscalers.
    for pdb in by_kind.get("PodDisruptionBudget", []):
        selector = (pdb.get("spec") or {}).get("selector")
        if not any(p.namespace == ns(pdb) and matches(selector, p.labels) for p in pods):
            fail("pdb-selector", ref(pdb), f"selector {show(selector)} matches no pod")
    for hpa in by_kind.get("HorizontalPodAutoscaler", []):
        target = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
        if not any(d["kind"] == target.get("kind") and d["metadata"]["name"] == target.get("name") and ns(d) == ns(hpa) for d in docs):
            fail("hpa-target", ref(hpa), f"scaleTargetRef {target.get('kind')}/{target.get('name')} does not exist")

    # Pods: probes, service accounts, ConfigMaps.
    config_maps = {(ns(c), c["metadata"]["name"]) for c in by_kind.get("ConfigMap", [])}
    accounts = {(ns(a), a["metadata"]["name"]) for a in by_kind.get("ServiceAccount", [])}
    for doc in docs:
        if doc["kind"] not in WORKLOADS:
            continue
        _, spec = pod_template(doc)
        account = spec.get("serviceAccountName") or spec.get("serviceAccount")
        if account and account != "default" and (ns(doc), account) not in accounts:
            fail("service-account", ref(doc), f"serviceAccountName {account!r} does not exist")
        wanted = []
        for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
            names = {p["name"] for p in c.get("ports") or [] if p.get("name")}
            for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
                for handler in ("httpGet", "tcpSocket", "grpc"):
                    port = ((c.get(probe) or {}).get(handler) or {}).get("port")
                    if isinstance(port, str) and port not in names:
                        fail("probe-port", ref(doc), f"container {c['name']}: {probe} port {port!r} is not one of its ports ({', '.join(sorted(names)) or 'none'})")
            for source in c.get("envFrom") or []:
                if source.get("configMapRef") and not source["configMapRef"].get("optional"):
                    wanted.append(source["configMapRef"]["name"])
            for env in c.get("env") or []:
                key_ref = (env.get("valueFrom") or {}).get("configMapKeyRef")
                if key_ref and not key_ref.get("optional"):
                    wanted.append(key_ref["name"])
        for volume in spec.get("volumes") or []:
            sources = [volume] + [s for s in (volume.get("projected") or {}).get("sources") or []]
            for source in sources:
                if source.get("configMap") and not source["configMap"].get("optional"):
                    wanted.append(source["configMap"]["name"])
        for name in wanted:
            if (ns(doc), name) not in config_maps:
                fail("configmap-ref", ref(doc), f"ConfigMap {name!r} is not in the manifests")

    # cert-manager.
    issuers = {(ns(i), i["metadata"]["name"]) for i in by_kind.get("Issuer", [])}
    cert_secrets = {(ns(c), c["spec"].get("secretName")) for c in by_kind.get("Certificate", [])}
    for cert in by_kind.get("Certificate", []):
        issuer = cert["spec"].get("issuerRef") or {}
        if issuer.get("kind", "Issuer") == "Issuer" and issuer.get("group", "cert-manager.io") == "cert-manager.io" \
                and (ns(cert), issuer.get("name")) not in issuers:
            fail("issuer-ref", ref(cert), f"issuerRef Issuer {issuer.get('name')!r} is not in the manifests")
    for issuer in by_kind.get("Issuer", []):
        secret = (issuer["spec"].get("ca") or {}).get("secretName")
        if secret and (ns(issuer), secret) not in cert_secrets:
            fail("issuer-ref", ref(issuer), f"CA secret {secret!r} is no Certificate's secretName")

    # Images by digest; the HPAs' queue metrics.
    if overlay in (config.get("imageDigest") or []):
        for doc in docs:
            if doc["kind"] in WORKLOADS:
                _, spec = pod_template(doc)
                for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
                    if not re.search(r"@sha256:[0-9a-f]{64}$", c.get("image", "")):
                        fail("image-digest", ref(doc), f"container {c['name']}: image {c.get('image')!r} is not pinned by digest (a tag can be moved; docs/operations.md \"Releases\")")
    declared = {m for f in ROOT.glob("services/*/src/messaging.ts")
                for block in re.findall(r"export const Queues = \{(.*?)\} as const;", f.read_text(), re.S)
                for m in re.findall(r":\s*'([^']+)'", block)}
    exported = {m for f in ROOT.glob("services/*/src/**/*.ts")
                for m in re.findall(r"\bname: '([a-z][a-z0-9_]*)'", f.read_text())}
    prefixes = {f"{d.name.split('-')[0]}_" for d in ROOT.glob("services/*") if d.is_dir()}
    for hpa in by_kind.get("HorizontalPodAutoscaler", []):
        for metric in (hpa.get("spec") or {}).get("metrics") or []:
            external = (metric.get("external") or {}).get("metric") or {}
            queue = (external.get("selector") or {}).get("matchLabels", {}).get("queue")
            if metric.get("type") == "External" and queue is not None and queue not in declared:
                fail("hpa-queue", ref(hpa), f"External metric selects queue {queue!r}, which no service declares ({', '.join(sorted(declared))})")
            name = external.get("name") or ""
            if metric.get("type") == "External" and any(name.startswith(p) for p in prefixes) and name not in exported:
                fail("hpa-metric", ref(hpa), f"External metric {name!r} is not one a service exports")

    check_sync_order(docs, fail)
    if overlay in (config.get("dataEgress") or {}):
        check_data_egress(docs, pods, config["dataEgress"][overlay], fail)
    return findings


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--overlay", required=True, help="the overlay's name, for wiring.yaml's allow list")
    parser.add_argument("--public-paths", type=pathlib.Path, help="JSON array of the OpenAPI document's paths")
    parser.add_argument("rendered", type=pathlib.Path)
    args = parser.parse_args()
    config = yaml.safe_load(CONFIG.read_text())
    docs = [d for d in yaml.safe_load_all(args.rendered.read_text()) if d]
    openapi_paths = json.loads(args.public_paths.read_text()) if args.public_paths else None
    allowed = config.get("allow") or []
    for rule in allowed:
        if not rule.get("reason"):
            sys.exit(f"wiring.yaml: allow entry {rule} has no reason")
    failed = 0
    for check_id, obj, detail, message in check(docs, config, openapi_paths, args.overlay):
        rule = next((r for r in allowed if r["overlay"] == args.overlay and r["check"] == check_id and r["object"] == obj
                     and r.get("peer", r.get("detail")) in (None, detail)), None)
        if rule:
            print(f"check-wiring: {args.rendered.name}: accepted [{check_id}] {obj}: {message}")
        else:
            print(f"check-wiring: {args.rendered.name}: [{check_id}] {obj}: {message}")
            failed += 1
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
