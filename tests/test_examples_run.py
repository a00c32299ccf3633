"""The fixtures' examples, run: "before" raises exactly the card's class and message from
the card's lines, "after" does not raise from them. Fails closed, as rustc's
``compile_fail,E0xxx`` doc tests and pylint's bad.py/good.py message tests do: an example
that stops raising, or a card whose example vanished, breaks the build.

The fixtures were written for this project and are safe to run; the examples run in a
child interpreter (extractor.verify, through tests/examples_runner.py), never in the test process.
"""

from __future__ import annotations

import importlib.util

import pytest

from extractor.publish.catalog_file import load_catalog

from .examples_runner import check
from .helpers import FIXTURES, run_cli

# Raises no test guards (any call reaches them, the message's placeholders given stand-ins): an
# example each, reproducing the error only (no argument keeps control from the raise).
ANY_CALL = {
    "forms": {"aliased_relative_import", "bare_class", "empty_call", "forgotten_f_prefix", "format_keyword", "format_numbered",
              "format_positional", "fstring_conversion_and_format_spec", "fstring_implicit_concat_multiline", "literal_braces_fstring",
              "literal_braces_plain", "message_in_local", "percent_dict", "percent_single", "percent_tuple", "plain_string",
              "plus_concatenation", "qualified_through_module", "raise_from_none", "two_args", "unconditional"},
    # (placeholders a subclass replaces: run on the class itself; stop raises SystemExit() on every call, and
    # Dial.level's setter on every assignment: ``Dial().level = 0``)
    "callers": {"Legacy.run", "Source.load", "Tally.fromkeys", "FixedFormatter.format", "Step.__call__", "stop", "Dial.level"},
    "families": {"close"},
}

# fixture -> the cards (function names) whose Python example must exist and run
# (REPRODUCE_ONLY: those whose example has no "after", no fix being shown)
EXPECTED = {
    "callers": {
        "take", "run", "parse_rule", "lookup", "weigh", "pick", "switch", "weekday", "chunks", "parse_port", "parse_range", "check_all", "connect", "clamp", "scale", "pad", "split_pair", "label", "opened", "Retry.__post_init__", "Basket.reserve", "Basket.from_text", "Shelf.__init__", "Ratio.__new__", "Window.slide",
        "order", "discount", "currency", "check_numbered", "Tally.__init__", "Reader.expect_name", "StrictReader.expect_digit", "Checker.check", "__getattr__", "rejected", "Gift.seal", "price_of", "tags_of", "connect_to", "Checkout.check", "Session.release", "Session.stop", "matches_host", "resize",
        "Session._require_running",  # (stated at Session.fetch, its public caller: solve.entries)
        "Session.send", "Archive.add", "Ticket.result", "Ticket.report",  # (after close(), cancel(), seal(): solve.steps)
        "Session.retry",  # (a class attribute a new object reads)
        "Catalog.price", "Tokens.give_back", "NamedTokens.take", "Scale.__call__", "Account.owner",  # (private attributes __init__ stores; two from one argument)
        "cap", "ship",  # (constants a star import binds)
    },
    "forms": {
        "not_isinstance", "is_none", "is_not_none_and_len", "modulo", "chained_comparison", "in_literal_tuple",
        "not_in_module_constant", "earlier_raises", "after_assert", "match_cases", "Buffer.reserve", "Buffer.append",
        "reraise_from_exc", "reraise_bound_name", "in_except_handler", "local_reassigned",
        "if_elif_else", "early_return", "loop_continue_break", "missing_path", "month_range", "port_number",
        "preload", "set_state", "from_digits", "sizes_positive", "start_pool", "on_event", "read_all",
    },
    "dateparse": {"split_date", "parse_month", "check_format", "zone_offset", "field_value", "require", "check_tag", "check_pattern"},
    # resolve_backend's trigger builds an OffloadConfig that passes its own validator first
    # (prefetch needs offload_group_size >= 1): the solver searches past the constructor's raises.
    # (and the field constraints of its pydantic classes: their examples construct the class)
    "offload": {"OffloadConfig.resolve_backend", "OffloadConfig", "PrefetchOffloadConfig", "UVAOffloadConfig"},
    "pydconfig": {"CacheConfig", "ChatRequest", "ChatRequest._few_tokens_when_hot", "GenerateRequest", "LimitsConfig", "ServerConfig",
                  "Span.__post_init__", "Marker._exactly_true", "ReplyRequest",
                  # required fields whose plain stand-ins ('', 0) the model's own validator refuses: 'x', 1
                  "MessagesRequest", "MessagesRequest._named_and_positive",
                  # a field validator whose only fix ([0]) pydantic refuses as a list of models: the error only
                  "Conversation._not_empty",
                  # a field's constraint of a class whose __post_init__ reads its InitVar: the error only
                  "Window",
                  # a field's constraint of a class whose model validator reads a set the tool cannot know: the error only
                  "SearchRequest", "SearchRequest._not_empty"},
    # every model's embed (a family of three, and ant's own), the public feed, hoot, a test's check and the pen's admit
    "families": {"embed", "feed", "hoot", "test_count", "Pen.admit", "_weigh"},
    # raises in private helpers, each example a call of the public entry that passes its arguments on (solve.entries)
    "entries": {"_decode", "_check_depth", "Tide._level", "Gauge._check_range", "Gauge._scaled", "_split", "pairs",
                "_parse_station", "_hourly", "table", "_daily", "_check_quarters", "_check_rows", "rows_of",
                "_Log.write"},  # (stated at log, which calls the module's object of _Log)
    # str- and int-mixin enums: a str field compared with a member is triggered by its value.
    # Integrality tests: a float that is not whole.
    # Tensors and arrays (TENSORS: their examples run where torch and numpy are installed).
    # Arguments built with their record's constructor (objects.py), nested and with a stand-in.
    "values": {"plan", "pick", "level_name", "Args.__post_init__", "Training.__post_init__", "Eval.__post_init__",
               "Delta.__init__", "repeat", "chunks", "whole", "count", "embed", "project", "check_queries", "check_rows", "normalize", "CacheConfig",
               "half_only", "at_least_1d", "store", "scales", "spread", "launch", "admit", "Limits", "CacheConfig._check_block_size", "Tool._label_is_text",
               "check_engine", "Engine.validate", "Engine.check_watermark",
               # a constant table's .get, lists of a given length (items out of range, items that differ), a shape against a tuple
               "activation_class", "check_sections", "agree", "pack",
               "unique_prefix",  # (a local a comprehension builds from the arguments, read as written)
               "choose_quant",  # (isinstance of an abstract base nothing registers a virtual subclass with)
               "on_gpu",  # (isinstance(x, torch.Tensor) of an unannotated value)
               "attend", "heads", "same_shape",  # (shapes equal to another's, or to a tuple of parameters: solve.derived)
               "same_rank", "known_names",  # (tuple, set and frozenset parameters: candidates of their own types)
               "Frames.check_unit",  # (a classmethod reads ``cls.UNITS`` as the class body gives it)
               "route",  # (a parameter nothing reads before the raise, of a type no value is built of: None, a stand-in)
               "Router.__init__",  # (one only stored before the raise, of such a type: None too)
               # required values of declared types (an Annotated alias, Literal, StrictBool, PositiveInt, Path)
               "Prompt", "archive", "retry", "Marker", "Job",
               # a parameter declared without None that the guard tests against None: given one
               "caption",
               # required fields of in-tree record classes: built from their own fields' stand-ins
               "Reply",
               # a remainder that 0, 1 and 2 never leave (3 % 2, 128 % 3), and a list of dicts with one in it
               "split_block", "remote_rank", "render_turn",
               # a multiple of the divisor a remainder test asks for (width=8), and a dtype outside a constant of dtypes
               "tile", "gather", "pick_level", "workspace", "to_tiles",
               # a parameter annotated with a Literal alias, imported or the module's own
               "Pauser.pause", "set_level",
               "pick_backend",  # (a value outside the Literal: annotations are not checked)
               "is_skipped",  # (parameters only helpers defined inside read, as their own: any value)
               "as_list",  # (a tensor whose ndim the search sets apart: built with it)
               "paged_attention",  # (a tensor the trigger gives only is_cuda = False: the typical CPU one)
               "grid", "_validate_rows",  # (a check called on the way: the trigger's values pass it)
               # a list with a repeated element; required arguments a statement on the way reads together
               "pin_devices", "Experts.__init__",
               # calls of functions imported under other names, struct.unpack and str.encode
               "step_count", "read_length", "ascii_label",
               # an argument compared with None only: the example builds an object of its one class
               "attach",
               # texts read on the way (digits of a length, a leading zero, a number's text, parts, lines) and a sorted list
               "parse_part", "host_and_mask", "header_value", "middle",
               # attributes read by name (getattr of a literal name): set through the record's constructor
               "check_batching", "check_micro", "check_ports",
               # a "before" validator's helper that returns at once on None lets other fields through
               "Tagged", "Salted", "check_salt", "check_sort", "Query",
               # a Literal's fix skips the choice its class's own __post_init__ refuses
               "Profiler", "Profiler.__post_init__",
               # required arguments nothing reads before the raise, or that __init__ only stores into self
               "Attention.__init__", "create_weights",
               # a raw payload over several keys, and a text tested for several letters
               "check_generation_prompt", "check_tool_usage", "check_echo", "check_usage_options", "open_mode", "parse_weight_config", "parse_prompt",
               # a "before" model validator's raw dict written as the constructor's keywords
               "ChatPayload.check_stream_options", "CompletionPayload.validate_prompt",
               # a shape's item counted from the end of the ndim a check gives, a dtype compared
               # with another's, and a key's value of another type than isinstance asks
               "paged_decode", "parse_group_config",
               "row_scales",  # (an array's sizes read of the shape the trigger gives it beside its numel())
               # a mapping's keys at values of its declared value type, and a function argument
               "check_modalities", "stream_arguments",
               "base_mode",  # (a list's count())
               "check_named_tool",  # (keys of a mapping read at a key)
               "tile_layout",  # (an Enum stand-in spelled through the module the annotation names)
               "dequantize",  # (a tensor of another dtype, for element_size() and is_floating_point())
               "mrope_positions"},  # (a shape a seed gave as plain sizes, printed as the torch.Size it is)
    # validate_* run under @strict, which wraps their errors (the runner checks the class the card
    # says the caller gets); positive is called directly, so its ValueError comes unwrapped.
    "strictcfg": {"ModelConfig.__post_init__", "ModelConfig.validate_architecture", "ModelConfig.validate_depth", "positive",
                  "ratio"},  # (an argument type: the text of a number past its bound, "1.5")
}
# Every value raises somewhere (if_elif_else's else branch, match_cases's ``case _``): those
# examples reproduce the error only. (early_return's and loop_continue_break's fixes take the
# earlier ``return``/``continue``/``break``.) Shelf(rows=2) passes the first test and raises
# at the second, which reads what ``_restock`` stored: no fix is shown as proven.
# currency's only fix is the environment's (SHOP_CURRENCY), which no argument changes.
# set_state's first raise (not a tuple) has no fix: every tuple the solver tries has not 4 items,
# so it reaches the second raise.
# Session.stop and Session.release are reached on a new Session (its __init__ leaves _state idle
# and _owner None): the way out is calling start() or acquire() first, which no argument is.
# split_date's first two raises have no fix: a text that avoids one reaches the next, and the
# solver finds no text of three parts for them.
# parse_weight_config's first raise has no fix: a config with "group_size" alone reaches the next.
# paged_decode's last raise has no fix found: k_cache's last size at 128 needs v_cache's shape changed with it.
# ChatPayload.check_stream_options's fixes give `data` values its fields' types refuse ('x', a text): none is shown.
# choose_quant's fix needs an AWQConfig, which no plain value is: none is built.
# MessagesRequest's `not self.model` has no fix: `model='x'` with the stand-in `max_tokens=0` reaches the next raise.
# Conversation._not_empty's only fix found ([0]) is refused by pydantic as a list of Message: none is shown.
# SearchRequest's model validator reads a set the tool cannot know: no "after" is claimed for its limit's bound
# (with the stand-in query='x') nor for its query's own validator (query='x': BLOCKED_QUERIES=x blocks it).
REPRODUCE_ONLY = {"forms": {"if_elif_else", "match_cases", "set_state", "on_event", "read_all"}, "dateparse": {"split_date"}, "callers": {"Shelf.__init__", "currency", "Session.stop", "Session.release",
                                                                                                   "Session._require_running", "Session.send",
                                                                                                   "Archive.add", "Ticket.result", "Ticket.report",
                                                                                                   "Session.retry", "Catalog.price", "Tokens.give_back"},
                  "values": {"parse_weight_config", "ChatPayload.check_stream_options", "choose_quant",
                             "paged_attention",  # (no CPU tensor is on a GPU: no fix runs here)
                             "paged_decode"},
                  "pydconfig": {"MessagesRequest._named_and_positive", "Window", "Conversation._not_empty", "SearchRequest",
                                "SearchRequest._not_empty"}}


# The outside libraries examples may need (Example.requires) that are installed here: an
# example that needs another is built and checked for its shape, and not run.
_INSTALLED = {name for name in ("torch", "numpy") if importlib.util.find_spec(name) is not None}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_every_example_raises_what_its_card_says(tmp_path, capsys, case: str) -> None:
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / case), "-o", str(out), "--no-cache").code == 0
    cards = load_catalog(str(out / "catalog.json"))["errors"]
    with_example = [c for c in cards if c["example"] and c["example"]["style"] == "python"]
    assert {c["function"] for c in with_example} == EXPECTED[case] | ANY_CALL.get(case, set())
    assert {c["function"] for c in with_example if c["example"]["after"] is None} == REPRODUCE_ONLY.get(case, set()) | ANY_CALL.get(case, set())
    runnable = [c for c in with_example if not (set(c["example"].get("requires") or ()) - _INSTALLED)]
    problems = {f"{c['path']}:{c['line']}": found for c in runnable if (found := check(c, str(FIXTURES / case)))}
    assert problems == {}
    # Only verified triggers get examples, and a verified trigger gives every required argument.
    assert all(c["trigger"]["verified"] and not c["trigger"]["missing"] for c in with_example)
