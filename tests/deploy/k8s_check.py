#!/usr/bin/env python3
"""What deploy/k8s relies on, checked offline (no cluster).

  k8s_check.py to-json MANIFEST.yaml OUT.json
      the YAML documents as a JSON array (for k8s_validate.mjs)
  k8s_check.py check MANIFEST.yaml
      our own minimal JSON Schema of the fields shb's recipe relies on
      (Kubernetes' OpenAPI schemas accept unknown fields, so a misspelt
      completionMode would pass them), then what no schema can say: one
      number of shards in completions, parallelism and SHB_SHARD_COUNT,
      --shard auto with --start-at, the claim the Pods mount is the
      ReadWriteMany one defined, the shards' seccomp profile is Localhost
  k8s_check.py seccomp GENERATOR
      deploy/k8s/seccomp-io-uring.py on a small profile written here:
      every rule kept, io_uring allowed once, refused nowhere
Exit status 1 with one line per problem."""
import json
import os
import shlex
import subprocess
import sys
import tempfile

import jsonschema
import yaml

POSITIVE_INT = {"type": "integer", "minimum": 1}
CONTAINER = {
    "type": "object",
    "required": ["name", "image", "command", "args", "resources", "volumeMounts"],
    "properties": {
        "resources": {
            "type": "object",
            "required": ["requests", "limits"],
            "properties": {
                "requests": {"type": "object", "required": ["cpu", "memory"]},
                "limits": {"type": "object", "required": ["cpu", "memory"]},
            },
        },
    },
}
JOB = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "batch/v1"},
        "spec": {
            "type": "object",
            "additionalProperties": False,
            "required": ["completions", "parallelism", "backoffLimit", "template"],
            "properties": {
                "completionMode": {"enum": ["Indexed", "NonIndexed"]},
                "completions": POSITIVE_INT,
                "parallelism": POSITIVE_INT,
                "backoffLimit": {"type": "integer", "minimum": 0},
                "activeDeadlineSeconds": POSITIVE_INT,
                "template": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["spec"],
                    "properties": {
                        "metadata": {"type": "object"},
                        "spec": {
                            "type": "object",
                            "required": ["restartPolicy", "securityContext",
                                         "containers", "volumes"],
                            "properties": {
                                "restartPolicy": {"const": "Never"},
                                "securityContext": {
                                    "type": "object",
                                    "required": ["seccompProfile"],
                                },
                                "containers": {"type": "array", "minItems": 1,
                                               "items": CONTAINER},
                            },
                        },
                    },
                },
            },
        },
    },
}
PVC = {
    "type": "object",
    "required": ["spec"],
    "properties": {"spec": {
        "type": "object",
        "required": ["accessModes", "resources"],
        "properties": {"accessModes": {"type": "array",
                                       "contains": {"const": "ReadWriteMany"}}},
    }},
}
CONFIGMAP = {
    "type": "object",
    "required": ["data"],
    "properties": {"data": {
        "type": "object",
        "required": ["SHB_ARGS", "SHB_URL", "SHB_START_AT", "SHB_SHARD_COUNT"],
        "additionalProperties": {"type": "string"},
    }},
}
SCHEMAS = {"Job": JOB, "PersistentVolumeClaim": PVC, "ConfigMap": CONFIGMAP}


def load(path):
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def by_kind(docs, kind):
    return {d["metadata"]["name"]: d for d in docs if d.get("kind") == kind}


def check(path):
    docs = load(path)
    problems = []
    for d in docs:
        schema = SCHEMAS.get(d.get("kind"))
        what = f"{d.get('kind')} {d.get('metadata', {}).get('name')}"
        if not schema:
            problems.append(f"{what}: a kind the recipe does not use")
            continue
        for e in jsonschema.Draft202012Validator(schema).iter_errors(d):
            loc = ".".join(str(p) for p in e.absolute_path)
            problems.append(f"{what}: {loc}: {e.message}")
    if problems:
        return problems
    jobs, pvcs = by_kind(docs, "Job"), by_kind(docs, "PersistentVolumeClaim")
    cms = by_kind(docs, "ConfigMap")
    shards = [j for j in jobs.values() if j["spec"].get("completionMode") == "Indexed"]
    if len(shards) != 1 or len(jobs) != 2 or len(cms) != 1:
        return ["want one Indexed Job (the shards), one merge Job, one ConfigMap"]
    job, cm = shards[0], next(iter(cms.values()))
    spec, pod = job["spec"], job["spec"]["template"]["spec"]
    n = cm["data"]["SHB_SHARD_COUNT"]
    if not (spec["completions"] == spec["parallelism"] == int(n)):
        problems.append(f"shards: completions {spec['completions']}, parallelism "
                        f"{spec['parallelism']} and SHB_SHARD_COUNT {n} differ")
    sp = pod["securityContext"]["seccompProfile"]
    if sp.get("type") != "Localhost" or not sp.get("localhostProfile"):
        problems.append("shards: seccompProfile is not a Localhost profile "
                        "(the runtime's default refuses io_uring)")
    for j in jobs.values():
        pspec = j["spec"]["template"]["spec"]
        c = pspec["containers"][0]
        words = shlex.split(" ".join(c["args"]))
        claims = {v["persistentVolumeClaim"]["claimName"] for v in pspec["volumes"]
                  if "persistentVolumeClaim" in v}
        if claims - set(pvcs) or not claims:
            problems.append(f"{j['metadata']['name']}: mounts {sorted(claims)}, "
                            f"defined: {sorted(pvcs)}")
        refs = {e["configMapRef"]["name"] for e in c.get("envFrom", [])}
        if refs != set(cms):
            problems.append(f"{j['metadata']['name']}: envFrom {sorted(refs)}")
        if j is job:
            for want in (["--shard", "auto"], ["--start-at", "$SHB_START_AT"]):
                if not any(words[i:i + 2] == want for i in range(len(words))):
                    problems.append(f"shards: no {' '.join(want)} in the command")
        elif "merge" not in words:
            problems.append(f"{j['metadata']['name']}: does not run shb merge")
    return problems


SMALL_PROFILE = {
    "defaultAction": "SCMP_ACT_ERRNO",
    "defaultErrnoRet": 1,
    "archMap": [{"architecture": "SCMP_ARCH_X86_64", "subArchitectures": []}],
    "syscalls": [
        {"names": ["read", "write", "close"], "action": "SCMP_ACT_ALLOW"},
        {"names": ["io_uring_setup", "ptrace"], "action": "SCMP_ACT_ERRNO",
         "errnoRet": 1},
        {"names": ["io_uring_enter"], "action": "SCMP_ACT_ERRNO"},
        {"names": ["personality"], "action": "SCMP_ACT_ALLOW",
         "args": [{"index": 0, "value": 0, "op": "SCMP_CMP_EQ"}]},
    ],
}


def seccomp(generator):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "default.json")
        with open(src, "w", encoding="utf-8") as f:
            json.dump(SMALL_PROFILE, f)
        out = subprocess.run([sys.executable, generator, src], check=False,
                             capture_output=True, text=True)
        bad = subprocess.run([sys.executable, generator, generator],
                             check=False, capture_output=True, text=True)
    if out.returncode != 0:
        return [f"generator: exit {out.returncode}: {out.stderr.strip()}"]
    problems = []
    if bad.returncode != 2 or len(bad.stderr.splitlines()) != 1:
        problems.append("generator: a file that is no profile: not exit 2 and one line")
    got = json.loads(out.stdout)
    want_rules = [
        {"names": ["read", "write", "close"], "action": "SCMP_ACT_ALLOW"},
        {"names": ["ptrace"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1},
        SMALL_PROFILE["syscalls"][3],
        {"names": ["io_uring_setup", "io_uring_enter", "io_uring_register"],
         "action": "SCMP_ACT_ALLOW", "comment": "shb: io_uring (deploy/k8s/README.md)"},
    ]
    if got.get("syscalls") != want_rules:
        problems.append(f"generator: rules {json.dumps(got.get('syscalls'))}")
    rest = {k: v for k, v in got.items() if k != "syscalls"}
    if rest != {k: v for k, v in SMALL_PROFILE.items() if k != "syscalls"}:
        problems.append("generator: changed more than the rules")
    return problems


def main(argv):
    if len(argv) == 4 and argv[1] == "to-json":
        with open(argv[3], "w", encoding="utf-8") as f:
            json.dump(load(argv[2]), f)
        return 0
    if len(argv) == 3 and argv[1] in ("check", "seccomp"):
        problems = check(argv[2]) if argv[1] == "check" else seccomp(argv[2])
        for p in problems:
            print(p)
        return 1 if problems else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
