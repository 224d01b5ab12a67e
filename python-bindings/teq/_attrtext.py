"""The textual form of teq attributes: the struct syntax
``#teq.<mnemonic><key = value, ...>`` that recipes and quantizers print as
(their serialized form), written and read back here.

Values are Python bool/int/float/str (an enum keyword or an MLIR type such as
``f8E4M3FN``), a nested struct ``<key = value>`` (a dict), a quoted string,
an attribute ``#teq.x<...>`` (kept as its text) or a list ``[...]``.
"""

import math


def format_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} cannot be written as a teq attribute field")
        text = repr(value)
        # MLIR float literals need a '.' before an exponent: 1e-06 -> 1.0e-06.
        mantissa, e, exponent = text.partition("e")
        if "." not in mantissa:
            mantissa += ".0"
        return mantissa + e + exponent
    if isinstance(value, dict):
        return "<" + ", ".join(f"{k} = {format_value(v)}" for k, v in value.items()) + ">"
    if hasattr(value, "to_attr"):
        return value.to_attr()
    return str(value)


def format_struct(mnemonic, fields):
    """``#teq.<mnemonic><k = v, ...>`` for the (key, value) pairs given."""
    return f"#teq.{mnemonic}<" + ", ".join(
        f"{k} = {format_value(v)}" for k, v in fields) + ">"


class _Reader:
    def __init__(self, text):
        self.text = text
        self.pos = 0

    def error(self, what):
        raise ValueError(f"cannot read teq attribute text at column {self.pos + 1}: "
                         f"{what}: {self.text!r}")

    def skip(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self):
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, token):
        self.skip()
        if not self.text.startswith(token, self.pos):
            self.error(f"expected '{token}'")
        self.pos += len(token)

    def balanced(self):
        """The text of one balanced <...> or [...] group, brackets included."""
        start = self.pos
        depth = 0
        in_string = False
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if in_string:
                if c == "\\":
                    self.pos += 1
                elif c == '"':
                    in_string = False
            elif c == '"':
                in_string = True
            elif c in "<[":
                depth += 1
            elif c in ">]":
                depth -= 1
                if depth == 0:
                    self.pos += 1
                    return self.text[start:self.pos]
            self.pos += 1
        self.error("unbalanced brackets")

    def word(self):
        self.skip()
        start = self.pos
        while self.pos < len(self.text) and (
                self.text[self.pos].isalnum() or self.text[self.pos] in "_.-+"):
            self.pos += 1
        if start == self.pos:
            self.error("expected a value")
        return self.text[start:self.pos]

    def value(self):
        c = self.peek()
        if c == "<":
            return self.struct_body()
        if c == "[":
            return self.list_body()
        if c == '"':
            self.pos += 1
            out = []
            while self.pos < len(self.text) and self.text[self.pos] != '"':
                if self.text[self.pos] == "\\":
                    self.pos += 1
                out.append(self.text[self.pos])
                self.pos += 1
            self.expect('"')
            return "".join(out)
        if c == "#":
            start = self.pos
            self.pos += 1
            self.word()
            if self.peek() == "<":
                self.balanced()
            return self.text[start:self.pos].strip()
        word = self.word()
        if word == "true":
            return True
        if word == "false":
            return False
        try:
            return int(word)
        except ValueError:
            pass
        try:
            return float(word)
        except ValueError:
            return word

    def struct_body(self):
        self.expect("<")
        fields = {}
        if self.peek() == ">":
            self.pos += 1
            return fields
        while True:
            key = self.word()
            self.expect("=")
            fields[key] = self.value()
            c = self.peek()
            if c == ",":
                self.pos += 1
                continue
            self.expect(">")
            return fields

    def list_body(self):
        self.expect("[")
        items = []
        if self.peek() == "]":
            self.pos += 1
            return items
        while True:
            items.append(self.list_item())
            c = self.peek()
            if c == ",":
                self.pos += 1
                continue
            self.expect("]")
            return items

    def trailing_fields(self):
        """`, key = value ...>` to the end of the text."""
        fields = {}
        while self.peek() == ",":
            self.pos += 1
            key = self.word()
            self.expect("=")
            fields[key] = self.value()
        self.expect(">")
        if self.peek():
            self.error("trailing text")
        return fields

    def list_item(self):
        # A custom recipe's rule `<role fields> -> #teq.quantizer<...>`.
        if self.peek() == "<":
            role = self.struct_body()
            self.expect("->")
            return (role, self.value())
        return self.value()


def parse_struct(text, mnemonic):
    """The fields of ``#teq.<mnemonic><...>`` as a dict."""
    reader = _Reader(text.strip())
    reader.expect(f"#teq.{mnemonic}")
    if reader.peek() != "<":
        return {}
    fields = reader.struct_body()
    if reader.peek():
        reader.error("trailing text")
    return fields


def parse_positional_struct(text, mnemonic):
    """A quantizer's ``#teq.<mnemonic><type, key = value, ...>``: the leading
    type and the fields."""
    reader = _Reader(text.strip())
    reader.expect(f"#teq.{mnemonic}")
    reader.expect("<")
    first = reader.word()
    return first, reader.trailing_fields()


def parse_custom_recipe(text):
    """``#teq.custom_recipe<[rules], key = value, ...>``: rules and fields."""
    reader = _Reader(text.strip())
    reader.expect("#teq.custom_recipe")
    reader.expect("<")
    rules = reader.list_body()
    return rules, reader.trailing_fields()


def mnemonic_of(text):
    """``delayed_scaling`` for ``#teq.delayed_scaling<...>``."""
    text = text.strip()
    if not text.startswith("#teq."):
        raise ValueError(f"not a teq attribute: {text!r}")
    end = 5
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    return text[5:end]
