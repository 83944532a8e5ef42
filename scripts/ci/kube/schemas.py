#!/usr/bin/env python3
"""Builds the JSON schemas kubeconform validates the rendered manifests against, offline.

usage: schemas.py OUT --kubernetes-schemas DIR --versions 1.31.0 [...] --openapi2jsonschema SCRIPT CRD.yaml [...]

- Kubernetes: the strict schemas bundled in the kubernetes-validate PyPI package
  (kubernetes_validate/kubernetes-json-schema/v<version>-local-strict/<kind>-<group>-<version>.json,
  the file names kubeconform looks for). Their references point at
  https://kubernetes.io/api/_definitions.json (through an "$id"); they are rewritten to the
  _definitions.json beside them, so kubeconform resolves them from disk.
  Written to OUT/kubernetes/v<version>-strict/.
- Custom resources: each CustomResourceDefinition's openAPIV3Schema, converted by kubeconform's own
  scripts/openapi2jsonschema.py (additionalProperties: false wherever properties are listed, the
  root included; int-or-string), then: x-kubernetes-preserve-unknown-fields objects keep accepting
  unknown fields, `nullable: true` admits null, and metadata is Kubernetes' ObjectMeta (strict)
  rather than the CRDs' bare `type: object`. Written to OUT/crds/<group>/<kind>_<version>.json.
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


def kubernetes_schemas(source: pathlib.Path, out: pathlib.Path, version: str) -> int:
    src = source / f"v{version}-local-strict"
    if not src.is_dir():
        sys.exit(f"schemas.py: kubernetes-validate has no schemas for Kubernetes {version} ({src})")
    dst = out / "kubernetes" / f"v{version}-strict"
    dst.mkdir(parents=True, exist_ok=True)
    count = 0
    for f in src.glob("*.json"):
        doc = json.loads(f.read_text().replace('"/api/_definitions.json#', '"_definitions.json#'))
        doc.pop("$id", None)
        (dst / f.name).write_text(json.dumps(doc))
        count += 1
    return count


def adjust(node, in_properties=False):
    """The fixes openapi2jsonschema.py leaves to be made, recursively."""
    if isinstance(node, list):
        for item in node:
            adjust(item)
        return
    if not isinstance(node, dict):
        return
    if node.get("x-kubernetes-preserve-unknown-fields") is True and node.get("additionalProperties") is False:
        del node["additionalProperties"]
    if node.get("nullable") is True and isinstance(node.get("type"), str):
        node["type"] = [node["type"], "null"]
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            for prop in value.values():
                adjust(prop)
        else:
            adjust(value)


def crd_schemas(crds, out: pathlib.Path, converter: pathlib.Path, newest: str) -> list:
    written = []
    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, FILENAME_FORMAT="{fullgroup}@{kind}_{version}", DENY_ROOT_ADDITIONAL_PROPERTIES="1")
        result = subprocess.run([sys.executable, str(converter), *[str(pathlib.Path(c).resolve()) for c in crds]],
                                cwd=work, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"schemas.py: openapi2jsonschema.py failed:\n{result.stdout}{result.stderr}")
        for f in sorted(pathlib.Path(work).glob("*.json")):
            group, name = f.name.split("@", 1)
            schema = json.loads(f.read_text())
            adjust(schema)
            # ../../kubernetes/v<newest>-strict/_definitions.json, relative to crds/<group>/<file>.
            schema.setdefault("properties", {})["metadata"] = {
                "$ref": f"../../kubernetes/v{newest}-strict/_definitions.json#/$defs/{OBJECT_META}"}
            dst = out / "crds" / group
            dst.mkdir(parents=True, exist_ok=True)
            (dst / name).write_text(json.dumps(schema))
            written.append(f"{group}/{name[:-len('.json')]}")
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--kubernetes-schemas", type=pathlib.Path, required=True)
    parser.add_argument("--versions", nargs="+", required=True)
    parser.add_argument("--openapi2jsonschema", type=pathlib.Path, required=True)
    parser.add_argument("crds", nargs="+", help="CustomResourceDefinition YAML files")
    args = parser.parse_args()
    for version in args.versions:
        print(f"Kubernetes {version}: {kubernetes_schemas(args.kubernetes_schemas, args.out, version)} schemas")
    newest = max(args.versions, key=lambda v: tuple(int(p) for p in v.split(".")))
    # Every CRD file must hold CustomResourceDefinitions (a moved file would otherwise vanish quietly).
    for crd in args.crds:
        if not re.search(r"^kind: CustomResourceDefinition$", pathlib.Path(crd).read_text(), re.M):
            sys.exit(f"schemas.py: {crd} holds no CustomResourceDefinition")
    written = crd_schemas(args.crds, args.out, args.openapi2jsonschema, newest)
    print(f"custom resources: {len(written)} schemas ({', '.join(written)})")


if __name__ == "__main__":
    main()
