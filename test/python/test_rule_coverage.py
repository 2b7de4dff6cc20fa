"""Every verifier rule is exercised by a test; every checklist item is a rule or waived."""
import pytest

from ascend_mla.tools import rule_coverage


def test_every_rule_is_mentioned_by_a_test():
    untested, _ = rule_coverage.report(None)
    assert untested == [], f"rules no test mentions: {untested}"


@pytest.mark.skipif(not rule_coverage.DEFAULT_SPEC.is_dir(),
                    reason="the spec catalogs (../shared/spec) are not beside this checkout")
def test_every_checklist_item_is_a_rule_or_waived():
    _, unhandled = rule_coverage.report(rule_coverage.DEFAULT_SPEC)
    assert unhandled == [], f"checklist items with no rule and no waiver: {unhandled}"


def test_the_scanner_finds_ids_only_as_whole_words(tmp_path):
    (tmp_path / "t.mlir").write_text("// expected-error {{x [MLA-117]}}\n// MLA-1170 FIA-MLA-001\n")
    found = rule_coverage.mentioned_ids({"MLA-117", "MLA-11", "MLA-1170", "MLA-001", "FIA-MLA-001"}, tmp_path)
    assert found == {"MLA-117", "MLA-1170", "FIA-MLA-001"}
