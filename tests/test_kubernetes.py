"""deploy/kubernetes/ (issue 36, part 3): every manifest valid against the pinned Kubernetes
version's schemas (kubernetes-validate, offline, strict: no unknown field), and what the
deployment promises checked on the manifests themselves: keys only in Secrets, probes on
/readyz and /healthz, resources on every container, one beat that a rollout never doubles,
everything denied but what each workload needs."""

from pathlib import Path
from typing import Any

import pytest
import yaml

KUBERNETES_VERSION = "1.35.0"
FOLDER = Path(__file__).resolve().parents[1] / "deploy" / "kubernetes"
SECRET_NAMES = (
    "DATABASE_URL",
    "DJANGO_SECRET_KEY",
    "VAULT_KEYS",
    "CARD_FINGERPRINT_KEY",
    "ISSUER_CARD_VERIFICATION_KEY",
    "METRICS_BEARER_TOKEN",
)


def documents() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(FOLDER.glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                found.append((path.name, document))
    return found


def of_kind(kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for _, d in documents() if d["kind"] == kind}


def containers(workload: dict[str, Any]) -> list[dict[str, Any]]:
    return workload["spec"]["template"]["spec"]["containers"]


@pytest.mark.parametrize(
    ("file", "document"),
    documents(),
    ids=[f"{name}:{d['kind']}/{d['metadata']['name']}" for name, d in documents()],
)
def test_every_manifest_is_valid_for_the_pinned_kubernetes(file, document):
    import kubernetes_validate

    kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
    assert document["metadata"].get("namespace", "cardplatform") == "cardplatform" or (
        document["kind"] == "Namespace"
    )


def test_the_workloads_and_their_companions_are_all_there():
    deployments = of_kind("Deployment")
    assert set(deployments) == {"web", "worker", "beat", "network-host", "pgbouncer"}
    assert set(of_kind("HorizontalPodAutoscaler")) == {"web", "worker"}
    assert set(of_kind("PodDisruptionBudget")) == {"web", "worker", "pgbouncer"}
    assert set(of_kind("Service")) == {"web", "network-host", "pgbouncer"}
    assert set(of_kind("Job")) == {"migrate"}


def test_keys_are_only_in_secrets():
    for config in of_kind("ConfigMap").values():
        text = yaml.safe_dump(config)
        for name in SECRET_NAMES:
            assert name not in text, (config["metadata"]["name"], name)
    secret = of_kind("Secret")["cardplatform-secrets"]
    assert set(SECRET_NAMES) <= set(secret["stringData"])


def test_web_is_ready_on_readyz_and_alive_on_healthz():
    [web] = containers(of_kind("Deployment")["web"])
    assert web["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert web["livenessProbe"]["httpGet"]["path"] == "/healthz"


def test_every_container_has_requests_limits_and_no_privilege():
    pods = [*of_kind("Deployment").values(), *of_kind("Job").values()]
    for workload in pods:
        spec = workload["spec"]["template"]["spec"]
        assert spec["securityContext"]["runAsNonRoot"] is True
        assert spec.get("automountServiceAccountToken") is False
        for container in spec["containers"]:
            resources = container["resources"]
            assert set(resources) == {"requests", "limits"}, workload["metadata"]["name"]
            assert {"cpu", "memory"} <= set(resources["limits"])
            security = container["securityContext"]
            assert security["allowPrivilegeEscalation"] is False
            assert security["readOnlyRootFilesystem"] is True


def test_one_beat_that_a_rollout_never_doubles():
    beat = of_kind("Deployment")["beat"]
    assert beat["spec"]["replicas"] == 1 and beat["spec"]["strategy"]["type"] == "Recreate"
    [container] = containers(beat)
    assert "config.beat:LeaderScheduler" in container["command"]  # and a leader lease
    assert "beat" not in of_kind("HorizontalPodAutoscaler")


def test_everything_is_denied_but_what_each_workload_needs():
    policies = of_kind("NetworkPolicy")
    deny = policies["default-deny"]["spec"]
    assert deny["podSelector"] == {} and set(deny["policyTypes"]) == {"Ingress", "Egress"}
    assert "ingress" not in deny and "egress" not in deny

    def ports(policy: str, direction: str) -> set[int]:
        return {
            port["port"]
            for rule in policies[policy]["spec"].get(direction, [])
            for port in rule.get("ports", [])
        }

    assert ports("web", "egress") == {8583, 443}  # the network link, requestors' JWKS
    assert ports("worker", "egress") == {8583, 443}  # the link, notifications and webhooks
    assert ports("pgbouncer", "egress") == {5432}  # PostgreSQL: PgBouncer alone
    assert ports("platform-to-pgbouncer-and-redis", "egress") == {6432, 6379}
    beat_may = policies["platform-to-pgbouncer-and-redis"]["spec"]["podSelector"]
    assert "beat" in beat_may["matchExpressions"][0]["values"]
    assert "beat" not in str(policies["web"]) and "beat" not in str(policies["worker"])


CHECKOV = Path(__file__).resolve().parents[1] / ".venv-checkov" / "bin" / "checkov"


def test_checkovs_kubernetes_checks_pass_offline():
    """checkov (its own venv, `make install-dev`), with nothing downloaded and, where the
    machine allows it, no network at all (a network namespace of its own): no failed check,
    and every skip names its reason in the manifest (`checkov.io/skipN: CKV_...=why`)."""
    import json
    import shutil
    import subprocess

    assert CHECKOV.exists(), "checkov's venv is missing: make install-dev makes it"
    command = [str(CHECKOV), "-d", str(FOLDER), "--framework", "kubernetes"]
    command += ["--compact", "--skip-download", "-o", "json"]
    isolated = shutil.which("unshare")
    if isolated and subprocess.run([isolated, "-n", "true"], capture_output=True).returncode == 0:
        command = [isolated, "-n", *command]
    ran = subprocess.run(command, capture_output=True, text=True, timeout=300)
    report = json.loads(ran.stdout[ran.stdout.find("{") :])
    failed = [(f["check_id"], f["resource"]) for f in report["results"]["failed_checks"]]
    assert failed == [] and report["summary"]["parsing_errors"] == 0
    for skipped in report["results"]["skipped_checks"]:
        reason = skipped["check_result"]["suppress_comment"]
        assert len(reason) > 30, skipped["check_id"]  # a reason, not a tag
