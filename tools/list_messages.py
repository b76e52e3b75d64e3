"""Every message the app can show, collected from the source, and the ones
docs/troubleshooting.md does not list yet.

    python tools/list_messages.py            # the missing ones (exit 1 if any)
    python tools/list_messages.py --all      # every collected message, with where it is

A *message* is a string template that reaches the user: the argument of a
``UserError`` (or a subclass) or of a ``*failed.emit``/``*error.emit``,
``show_error``, ``warn``, an error ``show_message``, a ``QMessageBox`` text, a
self-test ``Check`` that is FAIL or note, a CLI ``error:``/``warning:`` line, a
value assigned to a ``*reason`` name or passed as a ``*reason=`` keyword, the
return value of a ``*_note``/``*_reason``/``*_sentence``/``*_message``
function, and every entry of a ``*REASONS*`` table.

Templates are read statically (AST): string literals, f-strings, ``"..." %``
and ``.format`` calls, ``+`` concatenation, conditional expressions, module
constants (any module), local variables assigned in the same function, and
calls to functions of the app that return such templates. Every placeholder
becomes a wildcard, so ``f"The reference clip {path} does not exist."`` is
listed by a troubleshooting line such as
```The reference clip <path> does not exist.```.
Templates with fewer than MIN_LITERAL letters or a single word outside
placeholders (``str(exc)``, ``f"{exc}"``) carry no wording of their own and are
skipped: their text comes from a message collected elsewhere. Status-bar
and undo-bar confirmations (``*Bar.show_message``) are not messages to troubleshoot.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "studio"
DOC = ROOT / "docs" / "troubleshooting.md"

HOLE = "\x00"  # a placeholder inside a template
MIN_LITERAL = 6  # letters outside placeholders for a template to count as a message
BASE_ERROR = "UserError"
EMIT_SUFFIXES = ("failed", "error")  # failed, model_failed, play_failed, recorder error, ...
REASON_NAMES = ("reason",)  # reason, recording_reason, fallback_reason, self.reason
SHOW_CALLS = {"show_error", "warn"}
MESSAGE_BOX = {"information": 2, "warning": 2, "critical": 2, "question": 2}  # not About
LOGGERS = {"log", "logger", "logging", "_log", "LOG"}
RETURNING = ("_note", "_reason", "_sentence", "_message", "_reasons")
CLI_PREFIXES = ("error: ", "warning: ")
STATUS_NAMES = {"FAIL", "NOTE"}


@dataclass(frozen=True)
class Message:
    template: str  # HOLE where a placeholder was
    where: str  # path:line of the sink
    kind: str  # which sink found it

    @property
    def display(self) -> str:
        return self.template.replace(HOLE, "…")


# ---------------------------------------------------------------------- reading templates


def _format_holes(text: str) -> str:
    """'{path} is {0!r:>4}' -> HOLE + ' is ' + HOLE; '{{' stays a brace."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("{{", i) or text.startswith("}}", i):
            out.append(text[i])
            i += 2
        elif text[i] == "{":
            end = text.find("}", i)
            if end < 0:
                out.append(text[i:])
                break
            out.append(HOLE)
            i = end + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _percent_holes(text: str) -> str:
    return re.sub(r"%(\([^)]*\))?[-#0 +]*\d*(\.\d+)?[sdrifgx]", HOLE, text)


def _name_of(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


class Source:
    """The whole package's constants, functions and error classes, then its messages."""

    def __init__(self, root: Path = SOURCE):
        self.root = root
        self.trees: dict[Path, ast.Module] = {}
        for path in sorted(root.rglob("*.py")):
            try:
                self.trees[path] = ast.parse(path.read_text(encoding="utf-8"), str(path))
            except SyntaxError:  # someone's half-saved file: skip it, do not crash the test
                continue
        self.constants: dict[str, list[ast.AST]] = {}
        self.functions: dict[str, list[ast.FunctionDef]] = {}
        self.tables: list[tuple[Path, ast.Dict]] = []
        bases: dict[str, set[str]] = {}
        for path, tree in self.trees.items():
            for node in tree.body:
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        if isinstance(target, ast.Name) and target.id.isupper():
                            self.constants.setdefault(target.id, []).append(node.value)
                            if "REASON" in target.id and isinstance(node.value, ast.Dict):
                                self.tables.append((path, node.value))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.functions.setdefault(node.name, []).append(node)
                elif isinstance(node, ast.ClassDef):
                    bases[node.name] = {b for b in map(_name_of, node.bases) if b}
        self.errors = {BASE_ERROR}
        grew = True
        while grew:  # subclasses of subclasses
            new = {name for name, parents in bases.items() if parents & self.errors}
            grew = not new <= self.errors
            self.errors |= new

    # -- templates of an expression ------------------------------------------------
    def templates(self, node: ast.AST | None, scope: dict[str, list[ast.AST]],
                  seen: frozenset = frozenset()) -> list[str]:
        if node is None:
            return []
        if isinstance(node, ast.Constant):
            return [node.value] if isinstance(node.value, str) else []
        if isinstance(node, ast.JoinedStr):
            parts = [""]
            for value in node.values:
                if isinstance(value, ast.Constant):
                    pieces = [str(value.value)]
                else:
                    pieces = self._field(value, scope, seen)
                parts = [p + piece for p in parts for piece in pieces]
            return parts
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self.templates(node.left, scope, seen) or [HOLE]
            right = self.templates(node.right, scope, seen) or [HOLE]
            return [a + b for a in left for b in right]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return [_percent_holes(t) for t in self.templates(node.left, scope, seen)]
        if isinstance(node, ast.IfExp):
            return self.templates(node.body, scope, seen) + self.templates(node.orelse, scope, seen)
        if isinstance(node, ast.Call):
            return self._call_templates(node, scope, seen)
        if isinstance(node, _Unpacked):
            return self._unpacked(node, seen)
        name = _name_of(node)
        if name is None or name in seen:
            return []
        seen = seen | {name}
        if isinstance(node, ast.Name) and name in scope:
            return [t for value in scope[name] for t in self.templates(value, scope, seen)]
        if name.isupper() and name in self.constants:
            return [t for value in self.constants[name] for t in self.templates(value, {}, seen)]
        return []

    def _field(self, value: ast.AST, scope, seen) -> list[str]:
        """A placeholder of an f-string: followed only where it has ONE known wording
        (f"error: {message}"); a field that varies (f"{action} failed") stays a hole,
        so the message is not multiplied into combinations the code never makes."""
        inner = value.value if isinstance(value, ast.FormattedValue) else None
        if not isinstance(inner, (ast.Name, ast.Attribute)):
            return [HOLE]
        if isinstance(inner, ast.Name) and inner.id in seen:
            return [HOLE]  # a name built from itself (text = f"{text} more"): no end to follow
        if isinstance(inner, ast.Name) and inner.id in scope:
            # Every assignment must have a wording (name = str(path) has none).
            if not all(self.templates(v, scope, seen | {inner.id}) for v in scope[inner.id]):
                return [HOLE]
        known = self.templates(inner, scope, seen)
        return known if len(known) == 1 else [HOLE]

    def _call_templates(self, node: ast.Call, scope, seen) -> list[str]:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "format":
            return [_format_holes(t) for t in self.templates(func.value, scope, seen)]
        if isinstance(func, ast.Attribute) and func.attr in ("strip", "rstrip", "lstrip"):
            return self.templates(func.value, scope, seen)
        name = _name_of(func)
        if name and name in self.functions and name not in seen:
            # A call of the app's own function reaching a sink: its wording is in its returns.
            return [t for f in self.functions[name] for t in self.returns(f, seen | {name})]
        return []

    def returns(self, function: ast.FunctionDef, seen: frozenset = frozenset(),
                index: int | None = None) -> list[str]:
        """The templates ``function`` returns; with ``index``, those at that position of a
        returned tuple (``language, note = resolve(...)``)."""
        scope = _assignments(function)
        found = []
        for node in _own_nodes(function):
            if not isinstance(node, ast.Return) or node.value is None:
                continue
            value = node.value
            if index is not None and isinstance(value, ast.Tuple):
                if index < len(value.elts):
                    found += self.templates(value.elts[index], scope, seen)
            elif index is not None and isinstance(value, ast.Call):
                callee = _name_of(value.func)  # return other(...): follow the tuple into it
                if callee in self.functions and callee not in seen:
                    found += [t for f in self.functions[callee]
                              for t in self.returns(f, seen | {callee}, index)]
            elif index is None:
                found += self.templates(value, scope, seen)
        return found

    def _unpacked(self, node: _Unpacked, seen: frozenset) -> list[str]:
        name = _name_of(node.call.func)
        if name not in self.functions or name in seen:
            return []
        return [t for f in self.functions[name] for t in self.returns(f, seen | {name}, node.index)]

    # -- the sinks -----------------------------------------------------------------
    def messages(self) -> list[Message]:
        found: list[Message] = []
        for path, tree in self.trees.items():
            rel = path.relative_to(self.root.parent)
            for function in [tree, *self._functions_in(tree)]:
                scope = _assignments(function) if not isinstance(function, ast.Module) else {}
                for node in _own_nodes(function):
                    for kind, expr in self._sink_args(node):
                        for template in self.templates(expr, scope):
                            if kind == "cli":
                                template = _cli_line(template)
                            if template is not None:
                                found.append(Message(template, f"{rel}:{node.lineno}", kind))
                if isinstance(function, ast.FunctionDef) and function.name.endswith(RETURNING):
                    for template in self.returns(function):
                        found.append(Message(template, f"{rel}:{function.lineno}", "returns"))
        for path, table in self.tables:
            rel = path.relative_to(self.root.parent)
            for value in table.values:
                for template in self.templates(value, {}):
                    found.append(Message(template, f"{rel}:{value.lineno}", "reason table"))
        return _unique(m for m in found if _is_message(m.template))

    @staticmethod
    def _functions_in(tree: ast.Module) -> list[ast.FunctionDef]:
        return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def _sink_args(self, node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
        if isinstance(node, ast.Assign):  # reason = f"Playback is off: ..."
            if any((_name_of(t) or "").endswith(REASON_NAMES) for t in node.targets):
                yield "reason", node.value
            return
        if not isinstance(node, ast.Call):
            return
        for keyword in node.keywords:  # AudioStatus(..., recording_reason=...)
            if keyword.arg and keyword.arg.endswith(REASON_NAMES):
                yield "reason", keyword.value
        func, name = node.func, _name_of(node.func)
        if name in self.errors and node.args:
            yield "error", node.args[0]
        elif (name == "emit" and isinstance(func, ast.Attribute)
              and (_name_of(func.value) or "").endswith(EMIT_SUFFIXES)):
            for arg in node.args:
                yield "failed signal", arg
        elif (name == "report" and len(node.args) > 1 and isinstance(node.args[0], ast.Constant)
              and node.args[0].value == "failed"):  # a worker job's end: job.report("failed", ...)
            yield "failed signal", node.args[1]
        elif name == "show_message" and node.args and not _is_bar(func) and not any(
                k.arg == "error" and isinstance(k.value, ast.Constant) and k.value.value is False
                for k in node.keywords):
            yield "error label", node.args[0]
        elif name in SHOW_CALLS and node.args and not _is_logger(func):
            yield name, node.args[0]
        elif (name in MESSAGE_BOX and isinstance(func, ast.Attribute)
              and _name_of(func.value) == "QMessageBox" and len(node.args) > MESSAGE_BOX[name]):
            yield "message box", node.args[MESSAGE_BOX[name]]
        elif (name == "Check" and len(node.args) >= 3
              and _name_of(node.args[1]) in STATUS_NAMES):
            yield "self-test", node.args[2]
        elif name == "print" and node.args:
            yield "cli", node.args[0]  # only its error:/warning: lines count (see messages)
        elif name == "_fail" and len(node.args) > 1:  # the CLI's one failure printer (cli/exits.py)
            yield "error", node.args[1]


class _Unpacked(ast.AST):
    """``a, b = f(...)``: the value of ``b`` is what ``f`` returns at position 1."""

    def __init__(self, call: ast.Call, index: int):
        super().__init__()
        self.call, self.index = call, index


def _cli_line(template: str) -> str | None:
    """A CLI line without its ``error: `` prefix; None for any other print."""
    for prefix in CLI_PREFIXES:
        if template.startswith(prefix):
            return template[len(prefix):]
    return None


def _is_bar(func: ast.AST) -> bool:
    """statusBar / undoBar.show_message: progress and confirmations, not errors."""
    receiver = (_name_of(getattr(func, "value", None)) or "").lower()
    return receiver.endswith("bar") or "status" in receiver


def _is_logger(func: ast.AST) -> bool:
    return isinstance(func, ast.Attribute) and _name_of(func.value) in LOGGERS


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``scope`` without descending into nested functions (they are scopes too)."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _assignments(function: ast.AST) -> dict[str, list[ast.AST]]:
    """Local name -> every expression assigned to it (no flow analysis: any may reach a sink)."""
    scope: dict[str, list[ast.AST]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    scope.setdefault(target.id, []).append(node.value)
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    for t, v in zip(target.elts, node.value.elts):
                        if isinstance(t, ast.Name):
                            scope.setdefault(t.id, []).append(v)
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Call):
                    for i, t in enumerate(target.elts):
                        if isinstance(t, ast.Name):
                            scope.setdefault(t.id, []).append(_Unpacked(node.value, i))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            if isinstance(node.target, ast.Name):
                scope.setdefault(node.target.id, []).append(node.value)
    return scope


def _is_message(template: str) -> bool:
    """Wording of its own: enough letters and more than one word outside placeholders."""
    literal = template.replace(HOLE, "")
    return sum(ch.isalpha() for ch in literal) >= MIN_LITERAL and len(literal.split()) > 1


def _unique(messages: Iterable[Message]) -> list[Message]:
    seen: dict[str, Message] = {}
    for message in messages:
        seen.setdefault(normalise(message.template), message)
    return sorted(seen.values(), key=lambda m: m.where)


# ---------------------------------------------------------------------- matching the doc

_TYPOGRAPHY = str.maketrans({"…": "...", "\u2018": "'", "\u2019": "'", "\u201c": '"',
                             "\u201d": '"', "\u2013": "-", "\u2014": "-", "\u00a0": " "})


def normalise(text: str) -> str:
    """Case, typography and runs of white space do not matter."""
    return re.sub(r"\s+", " ", text.translate(_TYPOGRAPHY)).strip().lower()


def pattern(template: str) -> re.Pattern:
    """A template as a regex: its literal pieces in order, anything where a placeholder was.

    A placeholder may be written in the doc as ``<path>``, ``{path}``, ``…`` or a real
    example value; all match. The literal pieces must appear as written (after
    ``normalise``), on one line of the doc.
    """
    template = template.replace("`", "")  # the doc's code spans are stripped the same way
    pieces = [re.escape(normalise(piece)) for piece in template.split(HOLE)]
    # normalise() strips the pieces' own edge spaces; put one back where text had one.
    joined = ""
    for i, piece in enumerate(template.split(HOLE)):
        if i:
            joined += ".*?"
        lead = " ?" if piece[:1].isspace() and i else ""
        tail = " ?" if piece[-1:].isspace() and i < template.count(HOLE) else ""
        joined += lead + pieces[i] + tail
    return re.compile(joined)


def doc_lines(doc: Path = DOC) -> list[str]:
    if not doc.is_file():
        return []
    text = doc.read_text(encoding="utf-8")
    # Markdown code spans and emphasis around a message are not part of it.
    return [normalise(line.replace("`", "")) for line in text.splitlines()]


def missing(messages: list[Message], doc: Path = DOC) -> list[Message]:
    lines = doc_lines(doc)
    return [m for m in messages if not any(pattern(m.template).search(line) for line in lines)]


def collect(root: Path = SOURCE) -> list[Message]:
    return Source(root).messages()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="list every collected message")
    args = parser.parse_args(argv)
    messages = collect()
    shown = messages if args.all else missing(messages)
    for message in shown:
        print(f"{message.where}\t[{message.kind}]\t{message.display}")
    if not args.all:
        print(f"{len(shown)} of {len(messages)} messages are missing from "
              f"{DOC.relative_to(ROOT)}", file=sys.stderr)
    return 1 if shown and not args.all else 0


if __name__ == "__main__":
    sys.exit(main())
