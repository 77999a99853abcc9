#!/usr/bin/env python3
"""Writes the seccomp profile shb's Pods run under: a container runtime's
default profile plus io_uring_setup, io_uring_enter and io_uring_register.

  seccomp-io-uring.py DEFAULT.json > shb-io-uring.json

DEFAULT.json is the default profile of the runtime on your nodes, in the
OCI/Docker profile format ({"defaultAction": ..., "syscalls": [...]}):
CRI-O and Podman read theirs from /usr/share/containers/seccomp.json
(Debian package golang-github-containers-common); containerd and Docker
compile in the profile that the Moby project publishes as
profiles/seccomp/default.json (take the one of your runtime's version).
Start from your runtime's own profile rather than from a copy shipped
here, so that the result is exactly it plus io_uring.

Every rule is kept as it is; the three io_uring calls are taken out of any
rule that does not allow them (two actions for one call would be refused)
and allowed by one rule of their own. The output is the profile to
install on every node under the kubelet's seccomp directory
(deploy/k8s/README.md). Exit status 2, with one line on stderr, when the
input is not such a profile."""
import json
import sys

IO_URING = ["io_uring_setup", "io_uring_enter", "io_uring_register"]


def with_io_uring(profile):
    if not isinstance(profile, dict) or "defaultAction" not in profile:
        raise ValueError("not a seccomp profile: no defaultAction")
    rules = profile.get("syscalls", [])
    if not isinstance(rules, list):
        raise ValueError("syscalls is not a list")
    kept = []
    for rule in rules:
        names = rule.get("names", [rule["name"]] if "name" in rule else [])
        if rule.get("action") != "SCMP_ACT_ALLOW" or rule.get("args"):
            names = [n for n in names if n not in IO_URING]
            if not names:
                continue
            rule = dict(rule, names=names)
            rule.pop("name", None)
        kept.append(rule)
    kept.append({
        "names": IO_URING,
        "action": "SCMP_ACT_ALLOW",
        "comment": "shb: io_uring (deploy/k8s/README.md)",
    })
    return dict(profile, syscalls=kept)


def main(argv):
    if len(argv) != 2:
        print("usage: seccomp-io-uring.py DEFAULT.json > shb-io-uring.json",
              file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            profile = with_io_uring(json.load(f))
    except (OSError, ValueError, AttributeError, KeyError) as e:
        print(f"seccomp-io-uring.py: {argv[1]}: {e}", file=sys.stderr)
        return 2
    json.dump(profile, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
