"""Release diffs, stage by stage: the changed conditions of a guard, folded cascades, file
renames. (Whole diffs of the release-history fixture are golden tests in test_golden.py.)"""

from __future__ import annotations

from extractor.model import ConditionChange, to_data
from extractor.publish.conditions import condition_changes, describe, fold_cascades
from extractor.publish.diff import renamed_files


def _card(*parts: tuple[str, str], line: int = 3, function: str = "f") -> dict:
    code = " and ".join(code for _, code in parts)
    return {"id": f"c{line}", "path": "m.py", "line": line, "function": function,
            "guard": {"code": code, "parts": [{"role": role, "code": code} for role, code in parts]}}


def test_a_long_guard_with_one_changed_comparison_reads_as_that_comparison() -> None:
    old = _card(("exit", "not (a > 1 and b == 'x')"), ("outer", "c is not None"), ("own", "d < 10 or e in (1, 2)"))
    new = _card(("exit", "not (a > 1 and b == 'y')"), ("outer", "c is not None"), ("own", "d < 10 or e in (1, 2, 3)"))
    assert condition_changes(old, new) == [
        ConditionChange(role="exit", old="b == 'x'", new="b == 'y'"),
        ConditionChange(role="own", old="e in (1, 2)", new="e in (1, 2, 3)"),
    ]
    assert condition_changes(old, old) == []


def test_added_and_dropped_conditions_pair_only_with_similar_ones() -> None:
    old = _card(("own", "quantity < 1"), ("own", "mode == 'fast'"))
    new = _card(("own", "quantity < 1"), ("own", "not express"), ("own", "mode == 'faster'"))
    assert condition_changes(old, new) == [
        ConditionChange(role="own", new="not express"),
        ConditionChange(role="own", old="mode == 'fast'", new="mode == 'faster'"),
    ]
    unlike = condition_changes(_card(("own", "x.model_type == 'medusa'")), _card(("own", "target is None or target.kind != 'v41'")))
    assert unlike == [ConditionChange(role="own", old="x.model_type == 'medusa'"), ConditionChange(role="own", new="target is None or target.kind != 'v41'")]


def test_an_earlier_test_changed_once_is_reported_at_its_own_raise() -> None:
    first = (_card(("own", "n > 10"), line=3), _card(("own", "n > 100"), line=3))
    later = (_card(("exit", "not n > 10"), ("own", "not p"), line=5), _card(("exit", "not n > 100"), ("own", "not p"), line=5))
    last = (_card(("exit", "not n > 10"), ("own", "k"), line=7), _card(("exit", "not n > 100"), ("own", "k2"), line=7))
    folded = fold_cascades({new["id"]: (new, condition_changes(old, new)) for old, new in (first, later, last)})
    assert folded == {
        "c3": [ConditionChange(role="own", old="n > 10", new="n > 100", also=("c5", "c7"))],
        "c5": [],
        "c7": [ConditionChange(role="own", old="k", new="k2")],
    }
    line = describe(to_data(folded["c3"][0]), "f")
    assert line == [("code", "n > 10"), ("text", " → "), ("code", "n > 100"), ("text", " (the same change in 2 other errors of "), ("code", "f"),
                    ("text", ", not listed again)")]


def test_renamed_files_follow_the_folder_renames_their_tails_imply() -> None:
    old = {"pkg/__init__.py", "pkg/config/model.py", "pkg/config/__init__.py", "pkg/x.py", "keep.py", "a/dup.py", "b/dup.py"}
    new = {"pkg2/__init__.py", "pkg2/config/model.py", "pkg2/config/__init__.py", "pkg2/x.py", "keep.py", "c/dup.py"}
    assert renamed_files(old, new) == {
        "pkg/__init__.py": "pkg2/__init__.py", "pkg/config/__init__.py": "pkg2/config/__init__.py",
        "pkg/config/model.py": "pkg2/config/model.py", "pkg/x.py": "pkg2/x.py",
    }  # two dup.py claim one new file: neither is taken as renamed
    assert renamed_files({"pkg/util.py"}, {"pkg/helpers.py"}) == {}
    assert renamed_files({"x.py", "y.py"}, {"src/x.py", "src/y.py"}) == {"x.py": "src/x.py", "y.py": "src/y.py"}


# --- pairing: only on evidence ----------------------------------------------------------------


def _raise(card_id: str, template: str | None, *, path: str = "m.py", function: str = "f", line: int = 3, cls: str = "ValueError",
           test: str = "x") -> dict:
    return {"id": card_id, "path": path, "line": line, "function": function, "message": {"template": template},
            "exception": {"display": cls, "classes": [cls], "ancestors": ["Exception", "BaseException"]},
            "guard": {"code": test, "parts": [{"role": "own", "code": test}]}}


def _pairs(old: list[dict], new: list[dict]) -> list[tuple[str, str]]:
    from extractor.publish.pairing import pair_cards

    return sorted(pair_cards(old, new, {}).pairs)


def test_the_same_template_pairs_in_one_file_with_its_placeholders_renamed() -> None:
    old = [_raise("a", "Unknown mode {m!r}", function="parse")]
    assert _pairs(old, [_raise("b", "Unknown mode {mode!r}", function="_parse_mode")]) == [("a", "b")]
    # In another file, in another function, the same message is another raise; so is one of
    # another class in another function (no breaking change spans two functions).
    assert _pairs(old, [_raise("b", "Unknown mode {m!r}", path="other.py", function="load")]) == []
    assert _pairs(old, [_raise("b", "Unknown mode {m!r}", function="load", cls="KeyError")]) == []


def test_a_raise_inserted_first_does_not_shift_the_pairs_of_a_function() -> None:
    # Ordinals shift (the old first TypeError is now the second): the rewordings pair by
    # what they say, and the new first raise is an addition.
    old = [_raise("o1", "Got secondary option for non boolean flag.", cls="TypeError", test="self.secondary_opts", line=3),
           _raise("o2", "Hidden input does not work with boolean flag prompts.", cls="TypeError", test="hide_input", line=5)]
    new = [_raise("n0", "'name' is required with 'prompt=True'.", cls="TypeError", test="self.name is None", line=3),
           _raise("n1", "Secondary flag is not valid for non-boolean flag.", cls="TypeError", test="self.secondary_opts", line=5),
           _raise("n2", "'prompt' with 'hide_input' is not valid for boolean flag.", cls="TypeError", test="hide_input", line=7)]
    assert _pairs(old, new) == [("o1", "n1"), ("o2", "n2")]


def test_a_class_change_pairs_at_its_raise_and_two_unlike_bare_raises_do_not() -> None:
    old = [_raise("o1", "grams must be an int", cls="TypeError", test="not isinstance(grams, int)"),
           _raise("o2", "", cls="StoreError", test="order is None", line=5)]
    new = [_raise("n1", "grams must be a whole number", test="not isinstance(grams, int)"),
           _raise("n2", "", cls="KeyError", test="order in self.kept", line=5)]
    assert _pairs(old, new) == [("o1", "n1")]
