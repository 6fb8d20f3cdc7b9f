"""FastAPI's request validation (a query, path or body field missing, of the wrong type, out of
range) answered in the reader's language: pydantic says its messages in English only, so each
problem keeps pydantic's English (``error``) and its error type as a stable ``code`` scripts can
match on, and ``message_translated`` says it from our catalogue in the request's language. A type
the table does not name keeps its English."""
from __future__ import annotations

from typing import Any, Iterable

from ..i18n import DEFAULT, N_, current, t

#: pydantic's error types (https://docs.pydantic.dev/latest/errors/validation_errors/) → our
#: sentence; its ``ctx`` fills the placeholders.
MESSAGES: dict[str, str] = {
    "missing": N_("this field is required"),
    "int_parsing": N_("expected a whole number"),
    "int_type": N_("expected a whole number"),
    "int_from_float": N_("expected a whole number"),
    "float_parsing": N_("expected a number"),
    "float_type": N_("expected a number"),
    "bool_parsing": N_("expected true or false"),
    "bool_type": N_("expected true or false"),
    "string_type": N_("expected text"),
    "string_too_long": N_("at most {max_length} characters"),
    "string_too_short": N_("at least {min_length} characters"),
    "string_pattern_mismatch": N_("does not match the pattern {pattern}"),
    "greater_than_equal": N_("must be {ge} or more"),
    "greater_than": N_("must be more than {gt}"),
    "less_than_equal": N_("must be {le} or less"),
    "less_than": N_("must be less than {lt}"),
    "too_long": N_("at most {max_length} entries"),
    "too_short": N_("at least {min_length} entries"),
    "list_type": N_("expected a list"),
    "dict_type": N_("expected a JSON object"),
    "model_attributes_type": N_("expected a JSON object"),
    "json_invalid": N_("the body is not valid JSON"),
    "extra_forbidden": N_("this field is not allowed here"),
    "enum": N_("expected one of {expected}"),
    "literal_error": N_("expected one of {expected}"),
}


def problems(errors: Iterable[dict[str, Any]]) -> list[dict[str, str]]:
    """Each of pydantic's errors as ``{where, code, error}`` (``where``: the field's place,
    ``query.expected``), with ``message_translated`` when the reader chose another language
    than English."""
    out = []
    for e in errors:
        problem = {"where": ".".join(str(p) for p in e.get("loc", ())), "code": str(e.get("type", "")),
                   "error": str(e.get("msg", ""))}
        if current() != DEFAULT:
            problem["message_translated"] = translated(problem["code"], problem["error"], e.get("ctx") or {})
        out.append(problem)
    return out


def translated(code: str, english: str, ctx: dict[str, Any]) -> str:
    """pydantic's error ``code`` in the current language, its values from ``ctx``; ``english``
    when the table does not name it or the values are not there."""
    template = MESSAGES.get(code)
    if template is None:
        return english
    try:
        return t(template, **{k: str(v) for k, v in ctx.items()})
    except (KeyError, IndexError, ValueError):
        return english
