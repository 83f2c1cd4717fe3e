"""Fixtures for the cluster's tests: real PostgreSQL and Redis (from ``scripts/postgres`` and
``scripts/redis``; their absence fails the tests) and real ``kseri serve`` processes."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from clusterkit import Cluster, fresh_services


@pytest.fixture
def services() -> Iterator[tuple[str, str]]:
    """A fresh database and Redis database: (PostgreSQL URL, Redis URL)."""
    with fresh_services() as urls:
        yield urls


@pytest.fixture
def start_cluster(services: tuple[str, str]) -> Iterator[Callable[..., Cluster]]:
    """Start a cluster of ``size`` processes on the fresh services (stopped after the test)."""
    started: list[Cluster] = []

    def start(size: int = 3, **options: str) -> Cluster:
        flags = {f"--{k.replace('_', '-')}": v for k, v in options.items()}
        cluster = Cluster(*services, size=size, options=flags)
        started.append(cluster)
        return cluster.start()

    yield start
    for cluster in started:
        cluster.stop()
