"""docs/rules.md is generated from the rules (ascend_mla/tools/rules_doc.py) and current."""
from ascend_mla.dialect.dialect import MLA, load_op_definitions
from ascend_mla.tools import rules_doc


def test_rules_md_is_current():
    assert rules_doc.OUTPUT.read_text() == rules_doc.generate(), \
        "docs/rules.md is not current: run python -m ascend_mla.tools.rules_doc"


def test_every_rule_is_in_it():
    load_op_definitions()
    text = rules_doc.generate()
    for opdef in MLA.ops.values():
        assert f"## {opdef.name}" in text
        for rule in opdef.rules:
            assert f"| {rule.id} | " in text


def test_a_message_comes_from_the_check():
    def check(op, s):
        if op.x.rank < 1:
            return f"expected rank >= 1, got {op.x.rank}"
    assert rules_doc.message(check) == "expected rank >= 1, got {op.x.rank}"

    def documented(op, s):
        """x is a matrix."""
    assert rules_doc.message(documented) == "x is a matrix."
