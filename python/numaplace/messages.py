"""User text in the command line's messages: every message one line, whatever the user typed.

A path or value echoed in a message may hold a newline, a carriage return, a NUL byte, an
escape sequence or bytes that are not UTF-8; printed raw, the first two split the message over
lines (a script reading ``numaplace: error:`` lines sees half of it), the others corrupt the
terminal. :func:`shown` writes such characters as escapes, and :func:`error_line` is the one
line every command prints for an error, made of it.
"""

from __future__ import annotations

import os

#: The escapes of the control characters that have a short one (as Python writes them).
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(ch: str) -> str:
    code = ord(ch)
    if ch in _SHORT:
        return _SHORT[ch]
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, decoded with surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def shown(text: object) -> str:
    """``text`` (a path as ``os.PathLike`` or bytes too) as one printable line: control and
    separator characters (newline, carriage return, NUL, escape, DEL, U+2028, ...) as
    ``\\n``, ``\\r``, ``\\x00``, ``\\x1b``, ..., bytes that are not UTF-8 as ``\\xff``; all
    other text as it is."""
    if isinstance(text, (bytes, os.PathLike)):
        text = os.fsdecode(text)
    s = str(text)
    if s.isprintable():
        return s
    return "".join(ch if ch.isprintable() else _escaped(ch) for ch in s)


SHOWN_CHARS = 40
"""Characters of a value a message quotes before it is cut, as the simulator's errors cut them
(``model::error::SHOWN_CHARS``; a test checks they agree)."""


def shown_value(value: object) -> str:
    """``value`` as :func:`shown` writes it, cut after :data:`SHOWN_CHARS` characters with how
    many were left out: a 300-digit number is not echoed whole."""
    s = shown(value)
    return s if len(s) <= SHOWN_CHARS else f"{s[:SHOWN_CHARS]}…({len(s) - SHOWN_CHARS} more characters)"


def error_line(message: object) -> str:
    """The line the command line prints for an error: ``numaplace: error: MESSAGE``."""
    return f"numaplace: error: {shown(message)}"
