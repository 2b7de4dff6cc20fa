"""LLVM's regular expressions (`llvm::Regex`) as Python `re` patterns.

`expected-*-re` annotations are LLVM regexes: POSIX extended syntax as Henry Spencer's engine
reads it, on bytes. That is not Python's dialect: `\\d` is the letter d, `[[:digit:]]` is a
class, `(?:` and `*?` are errors, `$` matches only at the very end, and an invalid pattern has
LLVM's own message (`parentheses not balanced`...). `translate` parses the ERE the way LLVM
does, raising `RegexError` with LLVM's message at the first error, and returns an equivalent
Python bytes pattern (every capturing group in the same order, so back-references `\\1`-`\\9`
keep their numbers). Searching is all upstream does with a match, so POSIX's leftmost-longest
rule and Python's leftmost-first rule find the same answer.
"""
from __future__ import annotations

import re

# regerror() texts of LLVM's regex engine.
EMPTY = "empty (sub)expression"
BADRPT = "repetition-operator operand invalid"
BADBR = "invalid repetition count(s)"
EBRACE = "braces not balanced"
EBRACK = "brackets ([ ]) not balanced"
EPAREN = "parentheses not balanced"
ERANGE = "invalid character range"
ECTYPE = "invalid character class"
ECOLLATE = "invalid collating element"
EESCAPE = "trailing backslash (\\)"
ESUBREG = "invalid backreference number"

DUP_MAX = 255          # the largest count of a {m,n} bound


def _chars(text: str) -> frozenset:
    return frozenset(text.encode("latin-1"))


_ALPHA = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
# The POSIX classes in the C locale (`cntrl` has no NUL: the C table is a C string).
CLASSES = {
    "alnum": _chars(_ALPHA + "0123456789"), "alpha": _chars(_ALPHA), "blank": _chars(" \t"),
    "cntrl": frozenset(range(1, 32)) | {127}, "digit": _chars("0123456789"),
    "graph": _chars(_ALPHA + "0123456789" + _PUNCT), "lower": _chars(_ALPHA[26:]),
    "print": _chars(_ALPHA + "0123456789" + _PUNCT + " "), "punct": _chars(_PUNCT),
    "space": _chars("\t\n\v\f\r "), "upper": _chars(_ALPHA[:26]),
    "xdigit": _chars("0123456789ABCDEFabcdef"),
}
# Collating element names ([.name.] and [=name=]): the POSIX portable character set.
_CONTROL_NAMES = ["NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT",
                  "FF", "CR", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB",
                  "CAN", "EM", "SUB", "ESC", "IS4", "IS3", "IS2", "IS1"]
COLLATING_NAMES = {name.encode(): code for code, name in enumerate(_CONTROL_NAMES)}
COLLATING_NAMES.update({b"FS": 28, b"GS": 29, b"RS": 30, b"US": 31, b"DEL": 127})
COLLATING_NAMES.update({name.encode(): ord(char) for name, char in {
    "alert": "\a", "backspace": "\b", "tab": "\t", "newline": "\n", "vertical-tab": "\v",
    "form-feed": "\f", "carriage-return": "\r", "space": " ", "exclamation-mark": "!",
    "quotation-mark": '"', "number-sign": "#", "dollar-sign": "$", "percent-sign": "%",
    "ampersand": "&", "apostrophe": "'", "left-parenthesis": "(", "right-parenthesis": ")",
    "asterisk": "*", "plus-sign": "+", "comma": ",", "hyphen": "-", "hyphen-minus": "-",
    "period": ".", "full-stop": ".", "slash": "/", "solidus": "/", "zero": "0", "one": "1",
    "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
    "nine": "9", "colon": ":", "semicolon": ";", "less-than-sign": "<", "equals-sign": "=",
    "greater-than-sign": ">", "question-mark": "?", "commercial-at": "@",
    "left-square-bracket": "[", "backslash": "\\", "reverse-solidus": "\\",
    "right-square-bracket": "]", "circumflex": "^", "circumflex-accent": "^", "underscore": "_",
    "low-line": "_", "grave-accent": "`", "left-brace": "{", "left-curly-bracket": "{",
    "vertical-line": "|", "right-brace": "}", "right-curly-bracket": "}", "tilde": "~"}.items()})


class RegexError(ValueError):
    """An invalid LLVM regex; the message is LLVM's."""


def escape(text: bytes) -> bytes:
    """`llvm::Regex::escape`: a backslash before each of ()^$|*+?.[]\\{}."""
    return re.sub(rb"([()^$|*+?.\[\]\\{}])", rb"\\\1", text)


def compile(pattern: bytes) -> re.Pattern:
    """The Python equivalent of `llvm::Regex(pattern)`; RegexError when LLVM rejects it."""
    return re.compile(translate(pattern).encode("ascii"), re.DOTALL)


def translate(pattern: bytes) -> str:
    return _Parser(pattern).parse()


def _byte(b: int) -> str:
    return f"\\x{b:02x}"


def _digit(b) -> bool:
    return b is not None and 0x30 <= b <= 0x39     # C isdigit: ASCII only


def _signed(b: int) -> int:
    """A byte as C's (signed) char: LLVM compares range ends that way."""
    return b - 256 if b >= 128 else b


class _Parser:
    """Recursive descent over the ERE grammar, in LLVM's order of checks (the first error
    wins, as in its parser)."""

    def __init__(self, source: bytes):
        self.s, self.i = source, 0
        self.groups = 0
        self.closed: set[int] = set()      # groups a back-reference may name

    # -- cursor ------------------------------------------------------------------------
    def more(self, n: int = 1) -> bool:
        return self.i + n <= len(self.s)

    def peek(self, k: int = 0):
        return self.s[self.i + k] if self.i + k < len(self.s) else None

    def sees(self, text: bytes) -> bool:
        return self.s.startswith(text, self.i)

    def eat(self, text: bytes) -> bool:
        if self.sees(text):
            self.i += len(text)
            return True
        return False

    @staticmethod
    def fail(message: str):
        raise RegexError(message)

    # -- grammar -----------------------------------------------------------------------
    def parse(self) -> str:
        return self.alternation(stop=None)[0]

    # A piece's kind: "anchor" (^, $), "word" (a word boundary), "empty" (`()`) or None (it
    # consumes, or may). LLVM's engine steps through the ^/$ of a position before its one word
    # boundary, so a word boundary directly followed by an anchor or another word boundary never
    # matches (`[[:>:]]$`, `[[:<:]][[:<:]]`). That is modelled for adjacent pieces and groups of
    # one piece; deeper nesting of zero-width pieces is not.
    def alternation(self, stop) -> tuple[str, str | None]:
        branches, kinds = [], []
        while True:
            pieces, kind, after_word = [], None, False
            while self.more() and self.peek() not in (ord("|"), stop):
                text, kind = self.piece()
                if after_word and kind in ("anchor", "word"):
                    text = "(?!)"
                after_word = kind == "word" or kind == "empty" and after_word
                pieces.append((text, kind))
            if not pieces:
                self.fail(EMPTY)
            branches.append("".join(text for text, _ in pieces))
            kinds.append(kind if len(pieces) == 1 else None)
            if not self.eat(b"|"):
                return "|".join(branches), (kinds[0] if len(kinds) == 1 else None)

    def _repetition_follows(self) -> bool:
        c = self.peek()
        return c is not None and (c in b"*+?" or c == ord("{") and _digit(self.peek(1)))

    def piece(self) -> tuple[str, str | None]:
        """An atom and at most one repetition operator, and the piece's kind."""
        atom, kind = self.atom()
        if not self._repetition_follows():
            return atom, kind
        op = chr(self.s[self.i])
        self.i += 1
        if atom == "^":
            self.fail(BADRPT)
        if op == "{":
            op = self.bound()
        if self._repetition_follows():
            self.fail(BADRPT)
        return f"(?:{atom}){op}", None

    def atom(self) -> tuple[str, str | None]:
        c = chr(self.s[self.i])
        self.i += 1
        if c == "(":
            if not self.more():
                self.fail(EPAREN)
            self.groups += 1
            number = self.groups
            inner, kind = ("", "empty") if self.peek() == ord(")") else self.alternation(stop=ord(")"))
            self.closed.add(number)
            if not self.eat(b")"):
                self.fail(EPAREN)
            return f"({inner})", kind
        if c == ")":
            self.fail(EPAREN)
        if c == "^":
            return "^", "anchor"
        if c == "$":
            return r"\Z", "anchor"
        if c in "*+?":
            self.fail(BADRPT)
        if c == ".":
            return ".", None
        if c == "[":
            text = self.bracket()
            return text, "word" if text.startswith("\\b") else None
        if c == "\\":
            if not self.more():
                self.fail(EESCAPE)
            escaped = self.s[self.i]
            self.i += 1
            if ord("1") <= escaped <= ord("9"):
                if escaped - ord("0") not in self.closed:
                    self.fail(ESUBREG)
                return f"(?:\\{chr(escaped)})", None
            return _byte(escaped), None
        if c == "{" and _digit(self.peek()):
            self.fail(BADRPT)
        return _byte(ord(c)), None

    def count(self) -> int:
        digits, value = 0, 0
        while _digit(self.peek()) and value <= DUP_MAX:
            value = value * 10 + self.peek() - ord("0")
            self.i += 1
            digits += 1
        if digits == 0 or value > DUP_MAX:
            self.fail(BADBR)
        return value

    def bound(self) -> str:
        """`{m}`, `{m,}` or `{m,n}` after the `{`."""
        low = self.count()
        if self.eat(b","):
            if _digit(self.peek()):
                high = self.count()
                if low > high:
                    self.fail(BADBR)
                text = f"{{{low},{high}}}"
            else:
                text = f"{{{low},}}"
        else:
            text = f"{{{low}}}"
        if not self.eat(b"}"):
            while self.more() and self.peek() != ord("}"):
                self.i += 1
            self.fail(BADBR if self.more() else EBRACE)
        return text

    def bracket(self) -> str:
        """A bracket expression after its `[`, as an explicit set of bytes."""
        if len(self.s) - self.i > 5:        # LLVM's word-boundary extensions
            if self.eat(b"[:<:]]"):
                return r"\b(?=\w)"
            if self.eat(b"[:>:]]"):
                return r"\b(?<=\w)"
        members: set[int] = set()
        invert = self.eat(b"^")
        if self.eat(b"]"):
            members.add(ord("]"))
        elif self.eat(b"-"):
            members.add(ord("-"))
        while self.more() and self.peek() != ord("]") and not self.sees(b"-]"):
            self.term(members)
        if self.eat(b"-"):
            members.add(ord("-"))
        if not self.eat(b"]"):
            self.fail(EBRACK)
        if invert:
            members = set(range(256)) - members
        if not members:
            return "(?!)"
        return "[" + "".join(_byte(b) for b in sorted(members)) + "]"

    def term(self, members: set):
        if self.peek() == ord("-"):
            self.fail(ERANGE)
        kind = self.peek(1) if self.peek() == ord("[") else None
        if kind in (ord(":"), ord("=")):        # [:class:] or [=equivalence class=]
            end, error = (b":]", ECTYPE) if kind == ord(":") else (b"=]", ECOLLATE)
            self.i += 2
            if not self.more():
                self.fail(EBRACK)
            if self.peek() in (ord("-"), ord("]")):
                self.fail(error)
            if kind == ord(":"):
                members |= self.class_members()
            else:
                members.add(self.collating_element(b"="))
            if not self.more():
                self.fail(EBRACK)
            if not self.eat(end):
                self.fail(error)
        else:
            first = self.symbol()
            last = first
            if self.peek() == ord("-") and self.more(2) and self.peek(1) != ord("]"):
                self.i += 1
                last = ord("-") if self.eat(b"-") else self.symbol()
            if _signed(first) > _signed(last):
                self.fail(ERANGE)
            members.update(v & 0xFF for v in range(_signed(first), _signed(last) + 1))

    def class_members(self) -> frozenset:
        start = self.i
        while self.more() and chr(self.peek()) in _ALPHA:
            self.i += 1
        name = self.s[start:self.i].decode("latin-1")
        if name not in CLASSES:
            self.fail(ECTYPE)
        return CLASSES[name]

    def symbol(self) -> int:
        """One byte, or a `[.name.]` collating symbol."""
        if not self.more():
            self.fail(EBRACK)
        if not self.eat(b"[."):
            self.i += 1
            return self.s[self.i - 1]
        value = self.collating_element(b".")
        if not self.eat(b".]"):
            self.fail(ECOLLATE)
        return value

    def collating_element(self, end: bytes) -> int:
        start = self.i
        while self.more() and not self.sees(end + b"]"):
            self.i += 1
        if not self.more():
            self.fail(EBRACK)
        name = self.s[start:self.i]
        if name in COLLATING_NAMES:
            return COLLATING_NAMES[name]
        if len(name) == 1:
            return name[0]
        self.fail(ECOLLATE)
