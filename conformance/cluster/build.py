"""The cluster's launchers built by Maven against one RocketMQ release and cached as ``conformance/rocketmq/jvm.py`` builds the
harness (``maven_build``), under ``rocketmq-cluster/``."""

from __future__ import annotations

from pathlib import Path

from autoswitch.conformance.rocketmq.jvm import Build, HarnessError, Unavailable, maven_build

HERE = Path(__file__).parent
DEFAULT_VERSION = "5.5.0"  # the newest release whose rocketmq-namesrv, -client and -tools are on Maven Central
VERSIONS = ("5.3.3", "5.4.0", "5.5.0")  # the releases the launchers compile against (AuthConfig, JraftConfig: 5.3+)
NOT_ON_CENTRAL = {"5.5.1": "rocketmq-namesrv, rocketmq-client, rocketmq-tools and rocketmq-srvutil 5.5.1 are not on Maven Central"}

__all__ = ["DEFAULT_VERSION", "VERSIONS", "Build", "HarnessError", "Unavailable", "build", "version_problem"]


def version_problem(version: str) -> str | None:
    """Why ``version`` cannot run a cluster (a usage error), or None."""
    if version in NOT_ON_CENTRAL:
        return f"RocketMQ {version}: {NOT_ON_CENTRAL[version]}; supported: {', '.join(VERSIONS)}"
    if version not in VERSIONS:
        return f"RocketMQ {version} is not a release the cluster launchers support; supported: {', '.join(VERSIONS)}"
    return None


def build(version: str = DEFAULT_VERSION) -> Build:
    """The launchers built against ``version`` (jvm.maven_build). Unavailable without java/mvn or when Maven cannot
    resolve the release."""
    if version_problem(version):
        raise Unavailable(str(version_problem(version)))
    return maven_build(HERE, "rocketmq-cluster", version, "cluster launchers")
