"""check_client_version: herdr's texts (src/protocol/wire.rs check_client_version, 0.8.0 :961,
0.8.2 :1003; its tests version_compatible, version_older_client_rejected,
version_newer_client_rejected, prepersistence_version_zero_rejected)."""

from __future__ import annotations

import pytest

from simherdr.protocol import check_client_version


@pytest.mark.parametrize("server", [19, 20, 22])
def test_equal_is_accepted(server):
    assert check_client_version(server, server) is None


def test_older_newer_and_zero_texts():
    assert check_client_version(20, 19) == (
        "client version 19 is older than server version 20; please upgrade your herdr client"
    )
    assert check_client_version(20, 22) == (
        "client version 22 is newer than server version 20; please upgrade the herdr server"
    )
    assert check_client_version(22, 0) == "pre-persistence client (version 0) is not supported"
    assert check_client_version(19, 4294967295) == (
        "client version 4294967295 is newer than server version 19; please upgrade the herdr server"
    )
