"""The config key tables (package data hostcore/data/config_keys.json) and the row
config_strips_bom: herdr 0.9's normalize_utf8_bom ([H093] src/config/io.rs) drops a
leading BOM and line-start BOMs before parsing config.toml; 0.8.2 hands the BOM to toml."""

from __future__ import annotations

import pytest

from simherdr.hostcore import config_keys as CK
from tests.releases import distinguishing, rows

TEXT = '\ufeff[ui]\nsidebar_min_width = 20\n\ufeff[theme]\nname = "catppuccin"\n'


@pytest.mark.parametrize("version", distinguishing("config_strips_bom"))
def test_a_bom_is_dropped_where_the_row_says(version):
    got = CK.diagnose(version, TEXT)
    if rows(version).config_strips_bom:
        assert got == []
    else:
        assert len(got) == 1 and got[0].startswith("config parse error: TOML parse error at line 1")


def test_every_release_names_a_config_keys_table_with_its_source():
    from simherdr.facts.versions import releases

    assert {v.tables.config_keys for v in releases()} <= set(CK.table_keys())
    for key in CK.table_keys():
        assert CK._tables()[key]["source"], key
        assert CK._tree(key)["ui"], key  # builds (inherits, removes, sets resolve)
