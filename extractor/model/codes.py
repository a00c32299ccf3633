"""Codes: every status, reason and outcome a catalog carries -> a StrEnum member with its one-line description.

A code is written in JSON as its value (``Reason.SEARCH_BUDGET`` is ``"search_budget"``), so
catalogs hold plain strings. The wording a card shows is the member's description: the
templates get them as jinja globals (publish.render), and README's list of reason codes is
generated from them (tests/test_codes.py). A code that carries a value is a ``Detailed``: the
code and the value, written as one string (``no_candidate_values:dtype``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, TypeAlias

from .base import record

if TYPE_CHECKING:
    from typing import Self

class Code(StrEnum):
    """A code: a member is its JSON string, and carries a one-line ``description``."""

    description: str

    def __new__(cls, value: str, description: str = "") -> Self:  # (no default in use: mypy reads a lookup ``Reason(x)`` as a call)
        member = str.__new__(cls, value)
        member._value_ = value
        member.description = description
        return member


class TriggerStatus(Code):
    """What a caller can do with a card's trigger (solve.status)."""

    CONCRETE = "concrete", "the trigger is made of inputs only"
    ENVIRONMENT = "environment", "inputs, and conditions on the environment (stated in words)"
    INTERNAL = "internal", ("it rests on internal state (or a caught exception, or a loop element): the values are what the guard "
                            "needs, not something a caller can set")
    UNCONDITIONAL = "unconditional", ("nothing guards the raise once control reaches it (and no earlier try, loop or with statement may "
                                      "leave the function first)")
    UNREACHABLE = "unreachable", "no input in the declared domains reaches it"
    UNSOLVED = "unsolved", "no trigger found, with a reason"


# The statuses whose trigger a caller can act on (values the caller passes, facts of the machine).
CLAIMED = frozenset({TriggerStatus.CONCRETE, TriggerStatus.ENVIRONMENT})
# The statuses whose trigger is verified and shown as a call: those, and a raise any call reaches
# (``XMLReader().getFeature(name='')``): its call needs only the required arguments.
CALLED = CLAIMED | {TriggerStatus.UNCONDITIONAL}


class Reason(Code):
    """Why something is not known or not claimed: a message not reconstructed, an exception
    class not resolved, a trigger not found or not verified, no validator, an example verify
    did not run. One code has one wording wherever it stands. A code that carries a value
    (``Detailed``) words it as ``{value}``, with ``{a}`` its article ("a" or "an")."""

    # The exception and its message (ExceptionRef.reason, MessageTemplate.reason).
    NO_ARGUMENTS = "no_arguments", ("the exception is raised without arguments, and its class is defined outside the tree (it may give "
                                    "a default message)")
    KEYWORD_ARGUMENTS_ONLY = "keyword_arguments_only", "the exception is built from keyword arguments only"
    MULTIPLE_ARGUMENTS = "multiple_arguments", ("the exception gets several positional arguments, and how its class shows them is not "
                                                "followed here")
    STAR_ARGUMENTS = "star_arguments", "the arguments are unpacked at run time (*args/**kwargs)"
    CLASS_OUTSIDE_TREE = "class_outside_tree", ("the exception class is defined outside the tree, so how it shows its arguments is not "
                                                "known")
    BUILT_BY_CLASS = "built_by_class", "the exception class builds its message itself, in a way the tool does not follow"
    REPR_BY_CLASS = "repr_by_class", ("`str()` of the exception is its repr (`__str__ = object.__str__`), which a `__repr__` of the "
                                      "class builds in a way the tool does not follow")
    HELPER_ARGUMENTS_UNBOUND = "helper_arguments_unbound", ("the call's arguments cannot be put into the raising helper's raise "
                                                            "(a star argument, one the helper does not take, or one it reads that is "
                                                            "not given)")
    CLASS_MESSAGE_UNFILLED = "class_message_unfilled", ("the exception class builds its message from arguments whose values at this "
                                                        "call are not known (not given as code, or tested by the class)")
    RERAISE = "reraise", "the caught exception is re-raised unchanged, with its own message"
    RERAISE_OUTSIDE_EXCEPT = "reraise_outside_except", ("a bare raise outside any except block re-raises whatever exception the caller "
                                                        "is handling")
    RAISED_VARIABLE = "raised_variable", "the raised object is held in a variable the tool cannot follow"
    RAISED_OBJECT_UNRESOLVED = "raised_object_unresolved", "the raised object is held in a variable the tool cannot follow"
    RAISED_EXPRESSION = "raised_expression", "the raised object is computed by an expression"
    BUILT_BY_FACTORY = "built_by_factory", "the exception is built by a function, which sets the message"
    FACTORY_WITHOUT_RETURN_TYPE = "factory_without_return_type", "the factory that builds the exception has no return annotation"
    UNRESOLVED_FACTORY = "unresolved_factory", "the exception is built by a call the tool cannot resolve in this tree"
    OUTSIDE_TREE = "outside_tree", "the class is defined outside the analysed tree"
    ERRNO_SUBCLASS = "errno_subclass", ("the code calls `OSError` with an error number, and Python then creates the subclass registered "
                                        "for that number, which is what an `except` clause sees")
    UNRESOLVED_NAME = "unresolved_name", "the name is not defined or imported in the analysed tree"
    UNKNOWN = "unknown", "nothing is known of what is raised"
    MESSAGE_IS_PARAMETER = "message_is_parameter", "the message is a parameter of the function"
    MESSAGE_VARIABLE_REASSIGNED = "message_variable_reassigned", "the message variable is assigned more than once"
    MESSAGE_VARIABLE_BRANCHES = "message_variable_branches", "the message variable is assigned a different text on different branches"
    MESSAGE_VARIABLE_UNRESOLVED = "message_variable_unresolved", "the message variable is not assigned in this function"
    MESSAGE_VARIABLE_TOO_DEEP = "message_variable_too_deep", "the message goes through too many variables"
    FORMAT_ON_NON_LITERAL = "format_on_non_literal", "str.format is called on a value that is not a string literal"
    PERCENT_ON_NON_LITERAL = "percent_on_non_literal", "% formatting is applied to a value that is not a string literal"
    CONCAT_WITHOUT_STRING_LITERAL = "concat_without_string_literal", "the message is a sum without any string literal"
    BYTES_MESSAGE = "bytes_message", "the message is a bytes literal"
    OPAQUE = "opaque", "the message is the value of {a} {value} expression, which the tool does not evaluate"
    # Where collect.formats cannot read a format string as a template (MessageTemplate.reason).
    BAD_STRING_LITERAL = "bad_string_literal", "the message is a string literal Python's own parser does not read"
    NOT_A_STRING = "not_a_string", "a part of the concatenated message is not a string literal"
    FORMAT_STAR_ARGS = "format_star_args", "str.format gets its arguments unpacked at run time (`*args`)"
    FORMAT_MIXED_NUMBERING = "format_mixed_numbering", ("the format string mixes automatic (`{}`) and numbered (`{0}`) fields, which "
                                                        "str.format refuses")
    FORMAT_FIELD_UNRESOLVED = "format_field_unresolved", "a field of the format string names no argument of the call"
    BAD_FORMAT_STRING = "bad_format_string", "the format string is not one str.format reads"
    PERCENT_STAR_WIDTH = "percent_star_width", "a `%` conversion takes its width or precision from the arguments (`*`)"
    PERCENT_STAR_ARGS = "percent_star_args", "the `%` arguments are unpacked at run time (`*args`)"
    PERCENT_DICT_UNPACKING = "percent_dict_unpacking", "the `%` mapping is built with `**` unpacking"
    PERCENT_DICT_KEY = "percent_dict_key", "a key of the `%` mapping is not a string literal"
    PERCENT_KEY_UNRESOLVED = "percent_key_unresolved", "a `%(key)s` conversion names no key of the mapping"
    PERCENT_MIXED_KEYS = "percent_mixed_keys", "the format string mixes `%(key)s` and positional conversions"
    PERCENT_ARITY = "percent_arity", "the format string has more conversions than the `%` arguments give"
    # A definition the per-file pass cannot read, and guards it cannot model (Opaque.reason, and the above).
    LIBCST_PARSE_ERROR = "libcst_parse_error", ("libcst cannot parse this definition (CPython can), so only its location and class are "
                                                "known")
    LIBCST_VALIDATION_ERROR = "libcst_validation_error", ("libcst cannot rebuild a node of this definition, so only its location and "
                                                          "class are known")
    TOO_DEEP_FOR_LIBCST = "too_deep_for_libcst", "the definition holds an and/or too deep for libcst, so only ast reads it"
    TOO_DEEP = "too_deep", "the code nests too deeply to model"
    UNIT_MISMATCH = "unit_mismatch", "the two parsers disagreed on this definition"
    GUARD_TOO_LARGE = "guard_too_large", "the condition is larger than raisedocs models"
    MATCH_PATTERN = "match_pattern", "the `case` pattern is not modelled"
    MATCH_CLASS_ARGUMENTS = "match_class_arguments", "the `case` pattern's class arguments are not modelled"
    # Why no trigger is found, or the one found is not verified (Trigger.reason).
    GUARD_NOT_MODELLED = "guard_not_modelled", "the condition itself is not modelled"
    GUARD_NOT_EXPRESSION = "guard_not_expression", "the condition is not a single Python expression"
    SEARCH_BUDGET = "search_budget", "the search for values ran out of its budget"
    NO_CANDIDATE_SATISFIES = "no_candidate_satisfies", ("none of the candidate values drawn from the declarations and the condition's "
                                                        "constants makes it true")
    NO_CANDIDATE_VALUES = "no_candidate_values", ("none of the values the tool can write belongs to the type declared for `{value}`, so "
                                                  "no value was tried for it")
    BOUNDS_CONFLICT = "bounds_conflict", "the numeric bounds cannot all hold"
    NO_VALUE_IN_FINITE_DOMAINS = "no_value_in_finite_domains", "every value of the finite domains was tried"
    UNKNOWN_CONSTANT = "unknown_constant", ("the condition reads a named constant whose value the tree does not give as a literal, and "
                                            "the tool makes up no value for it")
    VALUE_TOO_LARGE = "value_too_large", "the condition or message needs a value past the evaluator's limits"
    ASSUMES_OPAQUE_VALUES = "assumes_opaque_values", "it assumes values for calls it does not evaluate"
    ASSUMES_INTERNAL_VALUES = "assumes_internal_values", ("the condition reads values the caller does not set (results of calls on "
                                                          "other objects, locals bound several times)")
    ASSUMES_ENVIRONMENT = "assumes_environment", "the condition reads the environment"
    EARLIER_EXIT_NOT_MODELLED = "earlier_exit_not_modelled", ("an earlier `try`, loop or `with` statement may return before this raise, "
                                                              "and when it does is not modelled")
    RAISED_WHILE_HANDLING = "raised_while_handling", ("the raise is in an except handler, so a statement of the try body must raise the "
                                                      "caught class first")
    RAISED_IN_FINALLY = "raised_in_finally", "the raise is in a finally block"
    DEFINED_CONDITIONALLY = "defined_conditionally", ("the function is defined inside a module-level `if`, `except` or try `else` (see "
                                                      "the context): it exists only where that ran when the module was imported, which "
                                                      "the condition above does not model")
    CAUGHT_IN_FUNCTION = "caught_in_function", "the function's own handler catches this error, so a caller may never see it"
    INSIDE_FOR_LOOP = "inside_for_loop", "the raise is inside a for loop, so an element of the loop must reach it"
    CACHED_UNHASHABLE = "cached_unhashable", ("the function is cached (`functools.cache`, `lru_cache`), which hashes its "
                                              "arguments first: a value of the trigger (a list, dict or set) cannot be hashed, so "
                                              "the call fails with `TypeError` before the body runs")
    OTHER_PLATFORM = "other_platform", ("the raise is reached on another platform only (the trigger needs another `sys.platform` or "
                                        "`os.name`, or the code imports a module such as `winreg` that exists there only): not verified "
                                        "on Linux")
    REPLACED_BY_COMPILED_MODULE = "replaced_by_compiled_module", ("the module imports a compiled module over this code when it can "
                                                                  "(such as `from _datetime import *`), so what runs there may be C "
                                                                  "code, with its own messages")
    VALUE_AND_ITS_ATTRIBUTE = "value_and_its_attribute", ("the trigger gives an input a plain value and also a value for one of its "
                                                          "attributes, which no plain value has")
    ABSTRACT_CLASS = "abstract_class", ("the function runs on an object of its class, which leaves abstract methods undefined under "
                                        "`ABCMeta`: Python refuses to create one (`TypeError: Can't instantiate abstract class`), so it "
                                        "runs only on an object of a subclass that defines them")
    UNDEFINED_ATTRIBUTES = "undefined_attributes", ("the function runs on an object of its class, whose constructor reads "
                                                    "attributes that neither the class nor any class it derives from defines (a base "
                                                    "class whose subclasses give them): creating one fails with `AttributeError`, so "
                                                    "it runs only on an object of a subclass")
    INCOHERENT_ARRAYS = "incoherent_arrays", ("the trigger gives an array (a tensor) a `shape` and an `ndim`, a shape or a `dtype` that "
                                              "no array has (its sizes are ints of at least 0, `ndim` is their count, and a dtype is no "
                                              "number), or a dtype, a device or a path an attribute other than its own "
                                              "(`torch.float32` with an `itemsize` of 1)")
    RAISED_NOT_SHOWN = "raised_not_shown", ("any call reaches the raise, but the tool cannot show what it raises (a re-raise, a "
                                            "factory, a message it cannot compute, a class named through the object), that the "
                                            "object's state read on the way lets control get there, or that the object can be "
                                            "built first (a constructor that calls other code, an abstract class): another error "
                                            "may come first")
    RAISES_AN_INPUT = "raises_an_input", ("what is raised is a value the caller passes (`raise err`), which must be an exception of "
                                          "theirs: the plain value the trigger shows stands for it, and `raise` refuses anything else "
                                          "with a `TypeError`")
    CONSTRUCTION_NOT_SHOWN = "construction_not_shown", ("the tool cannot show that building the object with the attribute values the "
                                                        "trigger sets passes what its construction runs (a check may refuse them, or "
                                                        "read a value the tool does not know)")
    HELPER_ON_THE_WAY = "helper_on_the_way", ("an earlier call of a raising helper in the function (such as `self.fail(...)`) may be "
                                              "reached first under the trigger's values: its condition is not shown to be false")
    CHECK_ON_THE_WAY = "check_on_the_way", ("a function of the file that is called on the way, before the raise, checks the values "
                                            "it is passed and may raise first under the trigger's values: its condition is not "
                                            "shown to be false")
    ARGUMENT_PASSED_ON = "argument_passed_on", ("a required argument the condition does not fix is given a value of its declared type "
                                                "only, and a statement on the way reads it that the tool does not follow (a call it is "
                                                "passed to, a loop): that may refuse the value first")
    LOOP_ON_THE_WAY = "loop_on_the_way", ("a loop on the way to the raise reads a value the trigger sets, and the tool does not run "
                                          "loops: it may fail first on that value, or change it")
    FAILS_ON_THE_WAY = "fails_on_the_way", ("under the trigger's values, a statement on the way to the raise, or the exception's own "
                                            "arguments, raise an error first (such as `x[0]` of an empty text, or `None` added to a "
                                            "number)")
    NOT_REPRODUCED = "not_reproduced", ("the standalone restatement of the guard and message does not raise this error with its message "
                                        "under the trigger (or the message cannot be computed), so the trigger is not claimed")
    INTERNAL_ERROR = "internal_error", "raisedocs failed here with `{value}` (a bug of ours), so the card is left unsolved"
    # Why a card has no validator (Card.validator_reason; the trigger's path codes above too).
    UNCONDITIONAL = "unconditional", "nothing guards the raise"
    RERAISES = "reraises", ("the raise re-raises an exception that was caught or passed in, which a standalone function cannot make the "
                            "same way")
    EXCEPTION_BUILT_BY_CALL = "exception_built_by_call", ("the exception is built by a call, which a standalone function would have to "
                                                          "make the same way")
    EXCEPTION_CLASS_UNRESOLVED = "exception_class_unresolved", ("the exception's class is not resolved to one class of the tree or the "
                                                                "builtins")
    NO_SINGLE_CLASS_OR_MESSAGE = "no_single_class_or_message", "the raise has no single exception class with a message"
    MESSAGE_NOT_RECONSTRUCTED = "message_not_reconstructed", "the message is not reconstructed"
    MESSAGE_BUILT_BY_CLASS = "message_built_by_class", "the exception class builds the message from arguments that are not given as code"
    NEEDS_CLASS = "needs_class", ("the condition tests values against classes of the project (isinstance), which a standalone function "
                                  "would have to import")
    NEEDS_VALUE_NO_CALLER_SETS = "needs_value_no_caller_sets", ("the condition reads values no caller passes in (calls, locals, the "
                                                                "environment)")
    NEEDS_ENUM_IMPORT = "needs_enum_import", "the condition compares with Enum members, which a standalone function would have to import"
    NEEDS_NAMED_CONSTANT = "needs_named_constant", ("the condition compares with a named constant or Enum member (of the project or a "
                                                    "library it imports, such as `torch.int32`), which a standalone function would have "
                                                    "to import")
    NEEDS_LOOP_ELEMENT = "needs_loop_element", ("the condition tests an element the function takes from a loop, which a standalone "
                                                "check of its inputs would have to iterate the same way")
    NEEDS_TRY_BODY = "needs_try_body", ("the condition depends on whether a statement of the function's own try body raises "
                                        "(`__raises__`), which a standalone check cannot test")
    ARGUMENT_NOT_EXPRESSION = "argument_not_expression", "an argument of the exception call reads a value the validator does not take"
    PLACEHOLDER_NEEDS_QUOTES = "placeholder_needs_quotes", ("a placeholder of the message holds both kinds of quotes, a backslash or a "
                                                            "line break, which the validator's f-string cannot hold before Python 3.12")
    PLACEHOLDER_NOT_EXPRESSION = "placeholder_not_expression", "a placeholder of the message is not a Python expression"
    CHECKED_BY_PYDANTIC = "checked_by_pydantic", ("pydantic checks this declared constraint itself: constructing the object is the "
                                                  "check (a restatement would raise another class than `ValidationError`)")
    NO_VIOLATING_VALUE = "no_violating_value", ("the tool knows no value that violates this declared constraint (a pattern that matches "
                                                "every text it tried, a bound or choice that is not a literal)")
    VALIDATOR_NOT_COMPILED = "validator_not_compiled", "the validator written for this raise does not compile (a bug of raisedocs)"
    # Why a card has no public entry (Entries.reason), or no trigger at one (Solved.entry_reason).
    NO_PUBLIC_ENTRY = "no_public_entry", ("no public function, method or class of the package is seen to reach this function (calls "
                                          "through locals, callbacks, other objects and decorators are not followed)")
    CAUGHT_ON_THE_WAY = "caught_on_the_way", ("on each way up from this function to a public entry, a call stands inside a `try` "
                                              "whose `except` catches this error's class or a base of it and does not raise it again: "
                                              "a user of those entries gets what the handler does instead")
    ENTRY_NOT_FIRST = "entry_not_first", ("on the way from the public entry, a call is not the first thing its caller surely does: "
                                          "something before it may fail or return first")
    ENTRY_VALUE_COMPUTED = "entry_value_computed", ("on the way from the public entry, a value the condition reads is computed, not "
                                                    "passed on unchanged from the entry's parameter of the same name or fixed to a "
                                                    "literal or module constant")
    ENTRY_READS_STATE = "entry_reads_state", "the condition reads more than the function's parameters (an object's or module's state)"
    ENTRY_READS_NOTHING = "entry_reads_nothing", ("no test guards the raise: whether an entry's call gets there is decided by the code "
                                                  "on the way, which is not followed")
    ENTRY_NOT_PLAIN_CALL = "entry_not_plain_call", ("the public entry is not called plainly (a decorator, generator, property or "
                                                    "special method stands in the way, or a framework that wraps what it raises, "
                                                    "such as a pydantic dataclass's `__post_init__`)")
    ENTRY_NOT_SOLVED = "entry_not_solved", ("solved again at the public entry, with the values the way to it fixes, no verified trigger "
                                            "with an example was found (a value may not be writable as the entry's argument)")
    # Why a verified trigger has no example (Solved.example_reason; solve.examples, solve.remedies).
    NOT_PUBLIC = "not_public", ("the function is private, nested in another function, or a method of a private or nested class, so a "
                                "caller cannot call it by name; and its trigger is not restated as a call of a public entry (where "
                                "one reaches it, the card says why)")
    NO_PUBLIC_MODULE = "no_public_module", ("the function, or a name the example would import, is defined in a private module that no "
                                            "public module is seen to re-export")
    NOT_IMPORTABLE = "not_importable", "the function's file has no name an import statement can write (`audit-tests.py`)"
    UNKNOWN_DECORATOR = "unknown_decorator", ("the function is wrapped by `@{value}`, which the tool does not know to pass a call through "
                                              "to the function's body unchanged")
    VALUE_NOT_PASSED = "value_not_passed", ("the trigger sets a value that no argument of the call and no keyword of the object's "
                                            "constructor passes (the object's state, or a value the code computes)")
    VALUE_NOT_WRITABLE = "value_not_writable", "a value of the trigger cannot be written as Python source"
    ARGUMENT_WITHOUT_VALUE = "argument_without_value", ("a required argument of the call has no value the tool can give: the "
                                                        "condition does not fix it, and a statement on the way reads it")
    SIGNATURE_MISMATCH = "signature_mismatch", ("the values cannot be passed as the declared signature takes them (a positional-only "
                                                "parameter after one left out, a variadic or private parameter, a keyword the "
                                                "signature does not declare)")
    CONSTRUCTOR_UNKNOWN = "constructor_unknown", ("the function runs on an object of a class (or takes one) whose constructor's "
                                                  "parameters the tool does not know (or that hands `*args`/`**kwargs` on, or "
                                                  "takes a field by an alias), so it cannot build one")
    CONSTRUCTOR_NEEDS_ARGUMENTS = "constructor_needs_arguments", ("building the object takes required arguments (fields without a "
                                                                  "default) that the tool has no values for")
    ASYNC_GENERATOR = "async_generator", "the function is an async generator, which an example would have to drive in an event loop"
    COMPUTED_ENVIRONMENT_NAME = "computed_environment_name", ("the condition reads an environment variable by a computed name, which "
                                                              "an example cannot set")
    EXAMPLE_NOT_COMPILED = "example_not_compiled", "the call the tool wrote does not compile (a bug of raisedocs)"
    # Why `raisedocs verify` did not run a card's example (Verification.reason).
    NO_EXAMPLE = "no_example", "the card has no Python example (some value of its trigger cannot be written as code)"
    CLI_EXAMPLE = "cli_example", "the example is a command line whose console script is not installed (nor declared by the tree verified)"
    SANDBOX_REFUSED = "sandbox_refused", "the sandbox refused something the example needed"
    CHILD_FAILED = "child_failed", "the interpreter running the example failed"
    IMPORT_FAILED = "import_failed", ("importing the example's modules raised an error here (Verification.detail says which), "
                                      "before its call ran: the package refuses this machine (no GPU, another platform) or lacks an "
                                      "optional part")
    MISSING_DEPENDENCY = "missing_dependency", ("a module the example imports, or one the code it runs imports, is not installed "
                                                "(Verification.detail names it): install it and verify again")
    NEEDS_NETWORK = "needs_network", ("the code it runs reached for the network, which the sandbox cuts off (Verification.detail "
                                      "says what failed): a download, such as a model's files, that a run with the network would make")


# How a carrying code and its value are written as one string: ``no_candidate_values:dtype``,
# ``opaque_call`` (the kind of the message's expression), ``internal_error: TypeError``.
JOINS = {Reason.NO_CANDIDATE_VALUES: ":", Reason.OPAQUE: "_", Reason.INTERNAL_ERROR: ": ", Reason.UNKNOWN_DECORATOR: ":"}


@record
class Detailed:
    """A reason that carries a value, written in JSON as one string: ``no_candidate_values:dtype``
    is ``Detailed(code=Reason.NO_CANDIDATE_VALUES, value="dtype")``."""

    code: Reason
    value: str

    def __str__(self) -> str:
        return self.code.value + JOINS[self.code] + self.value

    @property
    def description(self) -> str:
        """The code's description, worded with the value."""
        return self.code.description.format(value=self.value, a="an" if self.value[:1] in "aeiou" else "a")

    @classmethod
    def from_text(cls, text: str) -> Reason | Detailed:
        """A reason as JSON writes it: a member, or a carrying code with its value.

        Raises:
            ValueError: ``text`` is no reason.
        """
        plain = _PLAIN_REASONS.get(text)
        if plain is not None:
            return plain
        for code, join in JOINS.items():
            if text.startswith(code.value + join):
                return cls(code=code, value=text[len(code.value) + len(join):])
        raise ValueError(f"{text!r} is not a reason code")


_PLAIN_REASONS = {member.value: member for member in Reason if member not in JOINS}
ReasonCode: TypeAlias = Reason | Detailed  # the type of every reason field (a runtime union: records' hints name it)


class NoFix(Code):
    """Why a card's example has no "after" (Example.no_fix)."""

    NOT_WRITABLE = "not_writable", "none of the solutions can be written as this call"
    MAY_RAISE_ELSEWHERE = "may_raise_elsewhere", "under each of the solutions another raise of the function may fire"
    EVERY_CALL = "every_call", "every call of the function reaches this raise: no value of an argument keeps control from it"
    STAND_INS_UNSEEN = "stand_ins_unseen", ("the example passes stand-ins for the class's other required fields, which its "
                                            "`__post_init__` reads where the tool cannot follow: built with the fix, it may "
                                            "refuse them (with this value, pydantic refuses the field before `__post_init__` runs)")
    STAND_INS_UNCHECKED = "stand_ins_unchecked", ("the example passes stand-ins for the class's other required fields; built "
                                                  "with the fix, the checks the class runs after its fields' own (model "
                                                  "validators, `__post_init__`) see them, and the tool cannot show they pass (with "
                                                  "this value, pydantic refuses the field before those checks run)")
    CHECKS_AFTER_UNSEEN = "checks_after_unseen", ("with each solution the fields pass, and the checks the class runs once they "
                                                  "do (a model validator, `__post_init__`) see the values; the tool cannot show "
                                                  "they pass them (with the trigger's value, pydantic refuses the field first)")
    NONE_FOUND = "none_found", ("the tool found no change of one input that it can show keeps control from this raise: the condition "
                                "may read values it does not know, or each value it tried reaches another raise of the function")


class EntryKind(Code):
    """How callers reach a card's function (Card.entry; link.cards.entry_points, link.placeholders)."""

    PYDANTIC_MODEL_VALIDATOR_AFTER = "pydantic_model_validator_after", ("pydantic runs this `model_validator(mode=\"after\")` once the "
                                                                        "fields are validated, so the error surfaces when the model is "
                                                                        "constructed (pydantic reports a ValueError or AssertionError "
                                                                        "raised here inside a `ValidationError`).")
    PYDANTIC_MODEL_VALIDATOR_BEFORE = "pydantic_model_validator_before", ("pydantic runs this `model_validator(mode=\"before\")` on the "
                                                                          "raw input, before field validation, when the model is "
                                                                          "constructed.")
    PYDANTIC_MODEL_VALIDATOR_WRAP = "pydantic_model_validator_wrap", ("pydantic runs this `model_validator(mode=\"wrap\")` around field "
                                                                      "validation when the model is constructed.")
    PYDANTIC_FIELD_VALIDATOR = "pydantic_field_validator", ("pydantic runs this field validator while validating the field(s) it names, "
                                                            "when the model is constructed.")
    PYDANTIC_ROOT_VALIDATOR = "pydantic_root_validator", "pydantic runs this root validator when the model is constructed."
    PYDANTIC_FIELD_CONSTRAINT = "pydantic_field_constraint", ("pydantic checks this declared constraint while it validates the "
                                                              "field, when the model (or pydantic dataclass) is constructed, and "
                                                              "reports a violation inside a `ValidationError`.")
    PROPERTY = "property", "It runs when the property is read."
    PROPERTY_SETTER = "property_setter", "It runs when the property is assigned (`obj.name = value`), not when it is read."
    PROPERTY_DELETER = "property_deleter", "It runs when the property is deleted (`del obj.name`), not when it is read."
    MODULE_GETATTR = "module_getattr", ("It runs when code reads an attribute the module does not define (`module.name`, PEP 562); "
                                        "`from module import name` then raises `ImportError` instead.")
    CONSTRUCTOR = "constructor", "It runs when the class is instantiated."
    POST_INIT = "post_init", ("It runs at the end of the dataclass-generated `__init__` (`__post_init__`); where the class is a "
                              "pydantic dataclass, pydantic reports a ValueError or AssertionError raised here inside a "
                              "`ValidationError`.")
    PLACEHOLDER = "placeholder", ("This definition raises whenever it runs: the class does not implement the method (Python's "
                                  "documentation gives `NotImplementedError` to abstract methods that subclasses must override, and to "
                                  "code not written yet). It runs when the method is called on an object whose class neither defines "
                                  "it nor inherits a definition from a class in between (a coroutine method's body, when the call is "
                                  "awaited; a property's, when it is read).")
    ABSTRACT_ENFORCED = "abstract_enforced", ("It is abstract, and Python checks that: the class's metaclass is `ABCMeta` (or derives "
                                              "from it), so creating an instance of a class that does not define the method fails "
                                              "first, with `TypeError` (\"Can't instantiate abstract class ...\"). This raise runs only "
                                              "where this definition is reached explicitly, as `super()` does in an override.")
    REFUSES = "refuses", ("This definition raises `NotImplementedError` whenever it runs, and it overrides a method of the same name that "
                          "the class inherits (from a class of the tree, a builtin type or `object`): the class refuses that operation "
                          "on purpose, as its message may say. Objects of this class, and of subclasses that do not define the method "
                          "again, refuse it.")
    ABSTRACT_UNENFORCED = "abstract_unenforced", ("`@abstractmethod` has no effect here: neither the class nor any class it derives "
                                                  "from has the metaclass `ABCMeta`, so Python creates instances of subclasses that do "
                                                  "not define the method, and calling it on them raises.")
    ABSTRACT_UNKNOWN = "abstract_unknown", ("`@abstractmethod` keeps Python from creating instances of subclasses that do not define "
                                            "the method only where the class's metaclass is `ABCMeta`, and a base class outside the "
                                            "analysed tree decides that.")
    CLASS_LEVEL = "class_level", ("It is a class-level method (`classmethod` or `staticmethod`): calling it on the class needs no "
                                  "instance, so a caller reaches it through this class, or a subclass that does not define it, even "
                                  "where Python checks abstract methods.")


# The entries that run while the object is being constructed; of them, those that run before
# it is built: its __init__ or __post_init__, or a validator that runs before the after
# validators (a wrap validator, around it all).
CONSTRUCTING = frozenset({EntryKind.CONSTRUCTOR, EntryKind.POST_INIT, EntryKind.PYDANTIC_MODEL_VALIDATOR_AFTER,
                          EntryKind.PYDANTIC_MODEL_VALIDATOR_BEFORE, EntryKind.PYDANTIC_MODEL_VALIDATOR_WRAP,
                          EntryKind.PYDANTIC_FIELD_VALIDATOR, EntryKind.PYDANTIC_ROOT_VALIDATOR})
BUILDING = CONSTRUCTING - {EntryKind.PYDANTIC_MODEL_VALIDATOR_AFTER}
# A validator: no call of it is written; its class's calls run it (link.callgraph.public_entries)
RUN_BY_CLASS_CALL = CONSTRUCTING - {EntryKind.CONSTRUCTOR, EntryKind.POST_INIT}


class Framework(Code):
    """A framework that runs a card's code and decides what reaches the caller: the class their
    ``except`` sees, the text inside it, what the terminal shows (Shown.framework; link.wrapping)."""

    PYDANTIC = "pydantic", ("pydantic runs this validator while it validates the model, and reports a `ValueError` or "
                            "`AssertionError` raised here inside a `pydantic.ValidationError` (itself a `ValueError`), the "
                            "message after \"Value error, \" or \"Assertion failed, \"; another class passes through unwrapped.")
    HF_STRICT = "huggingface_strict", ("huggingface_hub's `@strict` dataclass runs this validator (a class validator when the object is "
                                       "constructed and when `.validate()` is called; a field validator whenever the field is set), "
                                       "and raises a `ValueError` or `TypeError` raised here again inside its own error class, which "
                                       "derives from `StrictDataclassError` and `Exception`, not from `ValueError`: an `except "
                                       "ValueError` does not catch it. Its message names the validator or field, and holds this "
                                       "error's class and message on its second line.")
    CLICK = "click", ("click runs this code for a command. Run standalone (the default: calling the command, or its console "
                      "script), click catches a `ClickException`, prints it on stderr as `Error: ` and its message (a usage "
                      "error after the command's usage line and a help hint), and exits with the class's exit code "
                      "(`SystemExit`: 2 for a usage error, 1 otherwise); with `standalone_mode=False` the exception "
                      "itself reaches the caller.")
    ARGPARSE = "argparse", ("argparse handles this error while it parses the command line: it prints the usage line and "
                            "`prog: error: argument <flag>: ` and the message on stderr, then exits with status 2 (`SystemExit`); "
                            "with `exit_on_error=False` the parser raises an `argparse.ArgumentError` holding that text instead.")
    ARGPARSE_ERROR = "argparse_error", ("The code calls argparse's `ArgumentParser.error` itself: it prints the usage line and "
                                        "`prog: error: ` and the message on stderr, then exits with status 2 (`SystemExit`), "
                                        "whatever `exit_on_error` says.")
    ATTRS = "attrs", ("attrs runs this validator in the `__init__` it generates (and, where the class sets attributes through its "
                      "validators, as `@define` does, whenever the attribute is assigned). It does not wrap what the validator "
                      "raises: the caller sees this class and message as they are.")


class RaiseKind(Code):
    """What a raise statement raises (Statement.kind; collect.cstpass)."""

    CALL = "call", "an exception built in the raise statement: `raise E(...)`"
    NAME = "name", "a name or an expression: a class (`raise E`), a variable, or a variable bound once to a call"
    RERAISE = "reraise", "a caught exception raised again: a bare `raise`, or `raise e` of the handler's own name"
    FIELD_CONSTRAINT = "field_constraint", ("no raise statement: a constraint declared on a field of a pydantic model or pydantic "
                                            "dataclass (`Field(ge=1)`, a `Literal` or `Enum` type, a strict type), which pydantic "
                                            "checks when the object is constructed, raising `pydantic.ValidationError` (a `ValueError` "
                                            "subclass) with its own message (Card.constraint; link.constraints)")
    HELPER_CALL = "helper_call", ("a call of a raising helper: a function of the tree that always raises (annotated `NoReturn` or "
                                  "`Never`, or every path through its body raises), which raises the helper's exception here")
    PARSER_ERROR = "parser_error", ("a call of argparse's `ArgumentParser.error(message)` on a parser the code shows (bound to "
                                    "`argparse.ArgumentParser(...)` or a class of the tree deriving from it, or a parameter annotated "
                                    "with one, or `self` in such a class): it prints the usage and `prog: error: message` on stderr and "
                                    "raises `SystemExit(2)`")


class PydanticError(Code):
    """The error type pydantic v2 (pydantic-core) reports for a violated field constraint
    (FieldConstraint.error_type; link.constraints): the member is the ``type`` of the entry
    ``ValidationError.errors()`` holds, the description pydantic's own message template for it
    (``PydanticKnownError(type).message_template``, checked by tests/test_constraints.py)."""

    GREATER_THAN = "greater_than", "Input should be greater than {gt}"
    GREATER_THAN_EQUAL = "greater_than_equal", "Input should be greater than or equal to {ge}"
    LESS_THAN = "less_than", "Input should be less than {lt}"
    LESS_THAN_EQUAL = "less_than_equal", "Input should be less than or equal to {le}"
    MULTIPLE_OF = "multiple_of", "Input should be a multiple of {multiple_of}"
    STRING_TOO_SHORT = "string_too_short", "String should have at least {min_length} character{expected_plural}"
    STRING_TOO_LONG = "string_too_long", "String should have at most {max_length} character{expected_plural}"
    TOO_SHORT = "too_short", "{field_type} should have at least {min_length} item{expected_plural} after validation, not {actual_length}"
    TOO_LONG = "too_long", "{field_type} should have at most {max_length} item{expected_plural} after validation, not {actual_length}"
    STRING_PATTERN_MISMATCH = "string_pattern_mismatch", "String should match pattern '{pattern}'"
    LITERAL_ERROR = "literal_error", "Input should be {expected}"
    ENUM = "enum", "Input should be {expected}"
    INT_TYPE = "int_type", "Input should be a valid integer"
    STRING_TYPE = "string_type", "Input should be a valid string"
    BOOL_TYPE = "bool_type", "Input should be a valid boolean"
    FLOAT_TYPE = "float_type", "Input should be a valid number"
    BYTES_TYPE = "bytes_type", "Input should be a valid bytes"


class InitRule(Code):
    """How an exception class's own ``__init__`` hands the call's arguments to its base's
    (ClassText.init; collect.class_messages): what ``self.args`` and the base's attributes get."""

    INHERITED = "inherited", "no __init__ of its own: the base's __init__ takes the call's arguments"
    FORWARDS = "forwards", "its __init__ passes every argument on unchanged (`super().__init__(*args, **kwargs)`)"
    PASSES = "passes", "its __init__ calls the base's __init__ once, with arguments written over its parameters"
    SKIPS = "skips", "its __init__ never calls the base's __init__: `self.args` stays the call's positional arguments"
    OPAQUE = "opaque", "its __init__ calls the base's __init__ in a way the tool does not follow, or assigns `self.args`"


class TextRule(Code):
    """How an exception class's own ``__str__`` makes ``str(exc)`` (ClassText.text; collect.class_messages)."""

    TEMPLATE = "template", "it returns a text written over the attributes its __init__ sets and `self.args`"
    EXTENDS = "extends", "it builds on the base's text (`super().__str__()`) and may add to it"
    PERCENT_ARGS = "percent_args", "it returns `self.args[0] % self.args[1:]`, with the base's text where that fails"
    OPAQUE = "opaque", "it builds the text in a way the tool does not follow (branches, other calls, several statements)"
    REPR = "repr", ("its `__str__` is `object.__str__`: `str()` shows the exception's repr (`ClassName(<args>)` unless a "
                    "`__repr__` says otherwise)")


class FixTarget(Code):
    """Which part of the guard a fix makes false (Fix.target; solve.fixes)."""

    OWN_TEST = "own_test", "the raise's own test"
    OUTER = "outer", "an enclosing test"
    LEAVE = "leave", "an earlier test whose other branch returns, breaks or continues: the fix takes that way out"


class ExampleStyle(Code):
    """How a card's example reaches the raise (Example.style; solve.examples)."""

    PYTHON = "python", "Python code that calls the function"
    CLI = "cli", "a command line of the project's CLI"


class VerifyOutcome(Code):
    """What running a card's example showed (Verification.outcome; verify.runner)."""

    CONFIRMED = "confirmed", "it raised the card's exception at the card's raise, with the card's message"
    WRAPPED = "wrapped", ("it raised the card's exception at the card's raise, with the card's message, and the caller got another "
                          "exception that wraps it (Verification.observed says which, with its message)")
    DIFFERENT_MESSAGE = "different_message", "it raised the card's exception at the card's raise, with another message"
    RAISED_ELSEWHERE = "raised_elsewhere", "it raised an error, not the card's or not at the card's raise"
    DID_NOT_RAISE = "did_not_raise", "it raised nothing"
    TIMEOUT = "timeout", "it ran past the time limit"
    NOT_RUNNABLE = "not_runnable", "it was not run (Verification.reason says why)"


class FixOutcome(Code):
    """What running an example's fix ("after") showed (Verification.fix and fixes; verify.runner)."""

    HOLDS = "holds", "it raised nothing"
    STILL_RAISES = "still_raises", "the card's raise still fires"
    RAISES_OTHER = "raises_other", "control stays away from the card's raise, but another error is raised"
    TIMEOUT = "timeout", "it ran past the time limit"
    NOT_RUN = "not_run", ("it was not judged (the interpreter failed, the sandbox refused it, or it reached for the network the "
                          "sandbox cuts off)")


class DomainSource(Code):
    """Where what an input may be comes from (Domain.source)."""

    FIELD = "field", "a declared field of a class"
    PARAMETER = "parameter", "a parameter of the function"
    OPAQUE = "opaque", "a value the function computes (a call, a local bound several times): nothing declares it"
    UNKNOWN = "unknown", "an input nothing in the tree declares"


class PartRole(Code):
    """Where a conjunct of a guard stands on the path to the raise (GuardPart.role; collect.paths)."""

    OWN = "own", "the raise's own test"
    OUTER = "outer", "an enclosing test"
    LEAVE = "leave", "an earlier `if` whose other branch only returns, breaks or continues, negated"
    EXIT = "exit", "any other earlier exit on the path, negated"


class ContextKind(Code):
    """What holds around a raise without being a test of its inputs (Context.kind; collect.paths, collect.sites)."""

    LOOP = "loop", "a loop the raise stands in"
    ELEMENT = "element", "a for loop reached on a one-element list (Guard.loops)"
    LOOP_ELSE = "loop_else", "the `else` block of a loop"
    EXCEPT = "except", "an except handler whose try body's raising is not modelled"
    HANDLER = "handler", "an except handler whose try body's raising is modelled (the guard says which expression raises)"
    FINALLY = "finally", "a finally block"
    CAUGHT = "caught", "a try statement of the function whose handler catches the raised error"
    DEFINED_IF = "defined_if", "the function is defined inside a module-level `if`, `except` or try `else`"


class HandlerOutcome(Code):
    """What an ``except`` clause around a call does instead of letting the error through (Handler.outcome; collect.callers)."""

    RERAISE = "reraise", "raises the caught error again (a bare `raise`, or `raise` of its own name): callers see it"
    RAISE_OTHER = "raise_other", "raises another error in its place"
    NO_RETURN = "no_return", ("calls a function that never returns (every path through it raises or ends the program, or it is "
                              "declared `NoReturn`): callers get what it raises in its place")
    EXITS = "exits", ("ends the program (`sys.exit` or `os._exit`, directly or through a function of its file that always calls "
                      "it): users see the program stop, with what it prints, instead of the error")
    KEEPS = "keeps", "keeps the error in a variable that a later raise of the function reads, and carries on"
    RETURN = "return", "returns instead"
    CONTINUE = "continue", "goes on with the loop's next turn"
    BREAK = "break", "leaves the loop"
    IGNORE = "ignore", "does nothing (`pass`) and carries on after the try statement"
    FALLBACK = "fallback", "runs other code in its place and carries on"


class CaughtVisibility(Code):
    """Whether users can still see an error the project's own handlers catch (Caught.visibility; link.caught)."""

    HIDDEN = "hidden", ("every call of the function in its file, followed through private callers, is inside a handler that catches "
                        "it, the function is private and the file uses its name nowhere else: calls through this file do not let it "
                        "reach users; a call from another file (`module._name(...)`, not followed) still may")
    PUBLIC = "public", ("every call of the function in its file is inside a handler that catches it, but the function is public (or "
                        "listed in `__all__`): a user who calls it directly sees the error")
    DECORATED = "decorated", ("every call of the function in its file is inside a handler that catches it, but a decorator may register "
                              "the function to be called from elsewhere, where the error may reach users")
    OTHER_USES = "other_uses", ("the calls listed are inside handlers that catch it, but the file also names the function where it is "
                                "not such a call (passed as a value, called through another object): through those uses users may "
                                "see the error")
    RERAISED = "reraised", "a handler that catches it raises it again: the error still reaches the callers"
    REPLACED = "replaced", ("every call of the function in its file, followed through private callers, is inside a handler that "
                            "catches it, but a handler raises another error in its place, ends the program or keeps it for a later "
                            "raise (as listed): users get that instead, with this error's text where the handler passes it on")
    PARTLY = "partly", ("some calls are inside a handler that catches it, others are not (or go on to callers this analysis does "
                      "not follow): through those, the error may reach users")


class Standing(Code):
    """Where a card stands for a reader: the order in which the index, the site and search show
    cards (publish.ranking), the first standing first."""

    USER = "user", "reached from the public API or the command line: an error users hit"
    INTERNAL = "internal", "reached from no public entry that the catalog shows: internal code, tests, private helpers"
    CAUGHT = "caught", "always caught by the library's own handlers (caught visibility `hidden`): users do not see it"
    NO_MESSAGE = "no_message", "raised without a message: nothing to search by, and little to read"


class ChangeKind(Code):
    """What happened to an error between two releases (Change.kind; publish.diff), in the order
    release notes list them; the description is the section's title."""

    ADDED = "added", "New errors"
    REMOVED = "removed", "Removed errors"
    MESSAGE_CHANGED = "message_changed", "Reworded messages"
    GUARD_CHANGED = "guard_changed", "Errors raised under different conditions"
    EXCEPTION_CHANGED = "exception_changed", "Errors with a different exception class"
    MOVED = "moved", "Moved errors"
    NOW_FAILS = "now_fails", "Files that no longer parse"
    FIXED_FAILURE = "fixed_failure", "Files that parse again"


class DefinitionKind(Code):
    """What a renamed definition is (DefinitionRename.kind; publish.pairing)."""

    FUNCTION = "function", "a function or method, renamed or moved to another file, its body the same or nearly so"
    CLASS = "class", "a class renamed or moved, every method that raises paired with its own"


class ProjectKind(Code):
    """Where a project of a corpus build comes from (a line of its list; corpus.projects)."""

    PYPI = "pypi", "a PyPI requirement (`click==8.1.7`): its wheel, else its sdist, downloaded and unpacked, never installed"
    GIT = "git", "a git repository and a revision (`URL@rev`, `PATH@rev`): the commit's files, read from the object store"
    FOLDER = "folder", "a local folder, read as it is"


class ProjectStatus(Code):
    """Where a project of a corpus build stands (the state database's ``status``; corpus.state)."""

    PENDING = "pending", "listed, not built yet (or its last build was cut short): the next run builds it"
    RUNNING = "running", "handed to a worker; a run killed meanwhile leaves it so, and the next run builds it again"
    DONE = "done", "built: its catalog is in the state folder, for the version, commit and raisedocs recorded"
    FAILED = "failed", "its last build failed, for the reason recorded; the next run retries it until its attempts reach the limit"


class BuildFailure(Code):
    """Why a project of a corpus build failed (the state database's ``reason``, beside a
    one-line detail; corpus.fetch, corpus.archives, corpus.task)."""

    NOT_FOUND = "not_found", "the package, version, repository, commit or folder does not exist"
    NO_DISTRIBUTION = "no_distribution", "the release has no wheel or source archive to read"
    DOWNLOAD_FAILED = "download_failed", "the download failed, or its bytes do not match the index's sha256"
    DOWNLOAD_TOO_LARGE = "download_too_large", "the download is larger than the limit"
    ARCHIVE_REFUSED = "archive_refused", ("the archive holds a member that would land outside its folder, a link, a device or "
                                          "another special file: nothing of it is read")
    ARCHIVE_TOO_LARGE = "archive_too_large", "the archive unpacks to more files or bytes than the limits allow (a zip bomb?)"
    ARCHIVE_UNREADABLE = "archive_unreadable", "the archive is not a zip or tar archive this build can read"
    NO_PYTHON = "no_python", "the project holds no Python file"
    TIMEOUT = "timeout", "the extraction ran past the time limit"
    EXTRACT_FAILED = "extract_failed", "raisedocs exited with an error on the project"
    WORKER_LOST = "worker_lost", "the worker running it died or the cluster lost it"


# Every enum of codes, in the order README lists them.
CODES: tuple[type[Code], ...] = (
    TriggerStatus, Reason, NoFix, EntryKind, Framework, RaiseKind, PydanticError, FixTarget, ExampleStyle, VerifyOutcome, FixOutcome,
    DomainSource, PartRole, ContextKind, ChangeKind, DefinitionKind, HandlerOutcome, CaughtVisibility, InitRule, TextRule,
    Standing, ProjectKind, ProjectStatus, BuildFailure,
)
