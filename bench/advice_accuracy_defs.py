"""Where each name is defined, found without graphify (the accuracy bench's truth).

Python files are read with `ast`; TypeScript and JavaScript files with the real
TypeScript compiler API (`typescript` from npm, pinned by the bench), through
the small node script in `TS_LISTER`; Go, Rust, Ruby, PHP and Java files with
Universal Ctags (Debian's `universal-ctags`), its kinds mapped in `CTAGS_KINDS`.
All apply one rule, documented in docs/advice_accuracy.md:

* every function, method or class statement is a definition, at any depth
  (Python `def`/`async def`/`class`; TS/JS function, class, method,
  constructor and accessor declarations, in classes and object literals);
* a TS interface, type alias, enum (and its members) and namespace is a
  definition, and so is a member (property or method signature) of a named
  type: an interface, or an object type that is a type alias's body (also
  within `A & {...}`), not an anonymous inline type such as a parameter's
  options `{ Err?: ... }`;
* a variable is a definition only at module, namespace or class level (Python
  `X = ...`/`X: T = ...` at module or class level; TS `const/let/var` at module
  or namespace level, and class property declarations): locals are not;
* imports, re-exports, parameters and attribute assignments (`self.x = ...`,
  `inst.parse = ...`) are not definitions. Imports and re-exports are kept as
  *bindings*: a site that points at one is not wrong, but it is not a
  definition either. So is every TS/JS declaration the TypeScript binder makes
  an alias (`const X = require("./x")`, `exports.X = Y`): go-to-definition
  resolves its name to another declaration;
* Rust `const` items, which Universal Ctags does not emit, are read line by
  line (`rust_consts`); lines are numbered at LF, as `grep -n` and graphify
  number them (`source_lines`).

Declarations of one name in one scope of one file are one definition with
several lines: TS merges them into one symbol (overload signatures and their
implementation, `interface X` beside `const X`), and in Python they rebind one
name in one namespace (`@overload` stubs, `if WIN: def getchar ... else: def
getchar ...`).

Such a definition may be an overload set, and it is counted as one: its
*overloads* are the declarations a caller chooses between by signature, each
marked by its parser: Java methods and constructors (ctags), TS/JS signatures
without a body (overload signatures, interface method signatures), Python
`@overload` stubs. `if WIN: def getchar ... else: def getchar ...` is one
definition without overloads.
"""

from __future__ import annotations

import ast
import bisect
import json
import re
import subprocess
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

PYTHON_SUFFIXES = (".py", ".pyi")
SCRIPT_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
CTAGS_LANGUAGES = {".go": "Go", ".rs": "Rust", ".rb": "Ruby", ".php": "PHP", ".java": "Java"}
CTAGS_SUFFIXES = tuple(CTAGS_LANGUAGES)
CODE_SUFFIXES = PYTHON_SUFFIXES + SCRIPT_SUFFIXES + CTAGS_SUFFIXES

# Kinds: what the declaration is. "function" covers methods, constructors and
# accessors; "class"; "interface", "type", "enum", "namespace" (TS); "member"
# (a property, method signature or enum member); "variable"; "binding" (an
# import or re-export: never a definition); "impl" (a Rust `impl` block: it
# adds methods to a type that is defined elsewhere, so it is not a definition
# of the type, and a site on it is wrong).


@dataclass(frozen=True)
class Decl:
    """One declaration statement: `lines` runs from its first line (decorators,
    `export`) to the line of its name."""

    file: str
    name: str
    kind: str
    container: tuple[str, ...]
    line: int
    name_line: int
    overload: bool = False  # one signature of an overload set (see the module docstring)

    def covers(self, line: int) -> bool:
        return self.line <= line <= self.name_line


@dataclass(frozen=True)
class Definition:
    """One definition of a name: a declaration, or an overload group."""

    file: str
    name: str
    container: tuple[str, ...]
    decls: tuple[Decl, ...]

    @property
    def line(self) -> int:
        return self.decls[0].name_line

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(d.kind for d in self.decls)

    @property
    def overloads(self) -> int:
        """How many overloads the definition has: 0 or 1 when it is not an
        overload set (a caller has nothing to choose between)."""
        return sum(1 for d in self.decls if d.overload)

    def declares(self, file: str, line: int) -> bool:
        """One of its declarations has its name on `line` of `file`."""
        return file == self.file and any(d.name_line == line for d in self.decls)

    def covers(self, file: str, line: int) -> bool:
        return file == self.file and any(d.covers(line) for d in self.decls)

    def site(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class DefinitionIndex:
    """Definitions and bindings by name, over a fixed set of files."""

    files: frozenset[str]
    definitions: dict[str, list[Definition]] = field(default_factory=dict)
    bindings: dict[str, list[Decl]] = field(default_factory=dict)
    # Rust `impl` blocks (file, line): no definition, but code that uses what it names
    impls: set[tuple[str, int]] = field(default_factory=set)

    def lookup(
        self, name: str, qualifier: str | None = None, kinds: Iterable[str] = ()
    ) -> list[Definition]:
        """Definitions of `name`, optionally under `qualifier` (an enclosing
        class, function or namespace, or a directory or module name of the file:
        `click.echo`, `Context.invoke`) and restricted to `kinds`."""
        wanted = frozenset(kinds)
        out = []
        for d in self.definitions.get(name, ()):
            if wanted and not wanted & d.kinds:
                continue
            if qualifier is not None and not _qualified_by(d, qualifier):
                continue
            out.append(d)
        return out

    def is_binding(self, name: str, file: str, line: int) -> bool:
        return any(b.file == file and b.covers(line) for b in self.bindings.get(name, ()))

    def declares(self, name: str, file: str, line: int) -> bool:
        """A declaration the parser finds at file:line is code of the project
        named `name` there: one of its definitions, or a Rust `impl` block."""
        return (file, line) in self.impls or any(
            d.covers(file, line) for d in self.definitions.get(name, ())
        )


def _qualified_by(d: Definition, qualifier: str) -> bool:
    """`qualifier` is the definition's enclosing scope (`Context` in
    `Context.invoke`), the tail of it (`Hashie::Extensions` in
    `Hashie::Extensions::DeepMerge`), a package or module it is in (`cobra` in
    `cobra.Command`), or its file's directory or module name (`click.echo`)."""
    wanted = tuple(p for p in qualifier.replace("::", ".").replace("#", ".").split(".") if p)
    if qualifier in d.container or (wanted and d.container[-len(wanted) :] == wanted):
        return True
    parts = d.file.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    return qualifier in parts[:-1] or qualifier == stem


def group_definitions(decls: Iterable[Decl]) -> list[Definition]:
    """One definition per (file, enclosing scope, name): TS merges such
    declarations into one symbol (overloads, `interface X` + `const X`), and in
    Python they rebind one name in one namespace (`if WIN: def getchar ...
    else: def getchar ...`, `@overload` stubs)."""
    groups: dict[tuple[str, tuple[str, ...], str], list[Decl]] = {}
    for decl in decls:
        groups.setdefault((decl.file, decl.container, decl.name), []).append(decl)
    out = [
        Definition(file, name, container, tuple(sorted(group, key=lambda d: d.line)))
        for (file, container, name), group in groups.items()
    ]
    out.sort(key=lambda d: (d.file, d.line))
    return out


def build_index(decls: Iterable[Decl], files: Iterable[str]) -> DefinitionIndex:
    index = DefinitionIndex(frozenset(files))
    by_name: dict[str, list[Decl]] = {}
    for decl in decls:
        if decl.kind == "binding":
            index.bindings.setdefault(decl.name, []).append(decl)
        elif decl.kind == "impl":
            # adds to a type defined elsewhere: not a definition, nor a binding
            index.impls.update((decl.file, line) for line in range(decl.line, decl.name_line + 1))
        else:
            by_name.setdefault(decl.name, []).append(decl)
    for name, group in by_name.items():
        index.definitions[name] = group_definitions(group)
    return index


# ---------------------------------------------------------------------------
# Python, with ast


def python_decls(source: bytes | str, file: str) -> list[Decl]:
    """The declarations of one Python file (see the module docstring)."""
    tree = ast.parse(source, file)
    out: list[Decl] = []
    _walk_python(tree.body, (), False, file, out)
    return out


_DEF_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers")


def _walk_python(
    body: list[ast.stmt], container: tuple[str, ...], in_function: bool, file: str, out: list[Decl]
) -> None:
    for node in body:
        if isinstance(node, _DEF_NODES):
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            stub = any(_is_overload(d) for d in node.decorator_list)
            out.append(Decl(file, node.name, kind, container, first, node.lineno, stub))
            _walk_python(
                node.body, (*container, node.name), in_function or kind == "function", file, out
            )
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if bound != "*":
                    out.append(Decl(file, bound, "binding", container, node.lineno, node.lineno))
            continue
        if not in_function and isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in _assigned_names(target):
                    out.append(Decl(file, name, "variable", container, node.lineno, node.lineno))
        for block in _BLOCK_FIELDS:
            sub = getattr(node, block, None)
            if isinstance(sub, list):
                stmts: list[ast.stmt] = []
                for item in sub:
                    if isinstance(item, ast.ExceptHandler):
                        stmts.extend(item.body)
                    elif isinstance(item, ast.stmt):
                        stmts.append(item)
                _walk_python(stmts, container, in_function, file, out)


def _is_overload(decorator: ast.expr) -> bool:
    """`@overload`, `@typing.overload`, `@t.overload`."""
    if isinstance(decorator, ast.Name):
        return decorator.id == "overload"
    return isinstance(decorator, ast.Attribute) and decorator.attr == "overload"


def _assigned_names(target: ast.expr) -> Iterator[str]:
    """Names a target binds: `X`, `a, b`, `(a, *rest)`; not `self.x` or `d[k]`."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from _assigned_names(elt)
    elif isinstance(target, ast.Starred):
        yield from _assigned_names(target.value)


# ---------------------------------------------------------------------------
# TypeScript and JavaScript, with the TypeScript compiler API

# argv: <typescript module dir> <project root>; stdin: a JSON list of files;
# stdout: one JSON object per declaration.
TS_LISTER = r"""
"use strict";
const path = require("path");
const fs = require("fs");
const [tsDir, root] = process.argv.slice(-2);  // `node -e SCRIPT tsDir root`
const ts = require(tsDir);
const files = JSON.parse(fs.readFileSync(0, "utf8"));
const K = ts.SyntaxKind;
// One program over the files, so that the binder marks aliases: a declaration
// whose symbol is an alias (`const X = require("./x")`, `exports.X = Y`,
// `module.exports.X = a.b`) binds another declaration's name, as go-to-definition
// (LanguageService.getDefinitionAtPosition) resolves it, and is a binding.
const program = ts.createProgram(files.map((rel) => path.join(root, rel)),
  {allowJs: true, noResolve: true, noLib: true, types: [], noEmit: true});
const checker = program.getTypeChecker();
function isAlias(nameNode) {
  const symbol = checker.getSymbolAtLocation(nameNode);
  return !!symbol && (symbol.flags & ts.SymbolFlags.Alias) !== 0;
}
const FUNCTION_LIKE = new Set([K.FunctionDeclaration, K.FunctionExpression, K.ArrowFunction,
  K.MethodDeclaration, K.Constructor, K.GetAccessor, K.SetAccessor]);
function nameOf(node) {
  const n = node.name;
  if (!n) return null;
  if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n)) return n.text;
  if (ts.isStringLiteral(n) || ts.isNumericLiteral(n)) return n.text;
  if (ts.isComputedPropertyName(n)) return n.getText();  // `[Symbol.iterator]`
  return null;
}
// A member of a named type: an interface, or an object type that is (part of)
// a type alias's body; not an anonymous inline type (a parameter's options).
function ownedByNamedType(node) {
  let owner = node.parent;
  if (ts.isInterfaceDeclaration(owner)) return true;
  if (!ts.isTypeLiteralNode(owner)) return false;
  owner = owner.parent;
  while (owner && (ts.isIntersectionTypeNode(owner) || ts.isUnionTypeNode(owner)
         || ts.isParenthesizedTypeNode(owner))) owner = owner.parent;
  return !!owner && ts.isTypeAliasDeclaration(owner);
}
const lines = [];
for (const rel of files) {
  const sf = program.getSourceFile(path.join(root, rel));
  if (!sf) throw new Error("the program does not hold " + rel);
  const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const emit = (node, name, kind, container, opts) => {
    const o = opts || {};
    const start = o.start !== undefined ? o.start : node.getStart(sf);
    const nameNode = o.nameNode || node.name || node;
    // an overload signature: a function-like declaration without a body, or
    // a method signature of a named type
    const overload = node.kind === K.MethodSignature
      || (FUNCTION_LIKE.has(node.kind) && node.body === undefined);
    lines.push(JSON.stringify({file: rel, name: name, kind: kind, container: container,
      line: lineOf(start), name_line: lineOf(nameNode.getStart(sf)), overload: overload}));
  };
  function visit(node, container, inFunction) {
    let push = null;
    const name = nameOf(node);
    const parent = node.parent;
    switch (node.kind) {
      case K.FunctionDeclaration:
        if (name) { emit(node, name, "function", container); push = name; }
        break;
      case K.ClassDeclaration: case K.ClassExpression:
        if (name) { emit(node, name, "class", container); push = name; }
        break;
      case K.InterfaceDeclaration: emit(node, name, "interface", container); push = name; break;
      case K.TypeAliasDeclaration: emit(node, name, "type", container); push = name; break;
      case K.EnumDeclaration: emit(node, name, "enum", container); push = name; break;
      case K.EnumMember: if (name) emit(node, name, "member", container); break;
      case K.ModuleDeclaration:
        if (ts.isIdentifier(node.name)) { emit(node, name, "namespace", container); push = name; }
        break;
      case K.VariableDeclaration:
        if (!inFunction && ts.isIdentifier(node.name)) {
          const stmt = parent && parent.parent;
          const start = stmt && ts.isVariableStatement(stmt) ? stmt.getStart(sf) : undefined;
          const alias = isAlias(node.name);
          emit(node, name, alias ? "binding" : "variable", container, {start: start});
          if (!alias) push = name;
        }
        break;
      case K.BindingElement:  // `const { Help } = require("./help")`: each an alias
        if (!inFunction && ts.isIdentifier(node.name) && isAlias(node.name)) {
          emit(node, node.name.text, "binding", container);
        }
        break;
      case K.MethodDeclaration: case K.GetAccessor: case K.SetAccessor:
        if (name) emit(node, name, "function", container);
        break;
      case K.Constructor:
        emit(node, "constructor", "function", container, {nameNode: node.getFirstToken(sf)});
        break;
      case K.PropertyDeclaration:
        if (name) emit(node, name, "member", container);
        break;
      case K.MethodSignature: case K.PropertySignature:
        if (name && !inFunction && ownedByNamedType(node)) emit(node, name, "member", container);
        break;
      case K.BinaryExpression: {
        // CommonJS: `exports.X = ...`, `module.exports.X = ...` define X at module
        // level; `C.prototype.X = ...` defines C's method X
        const left = node.left;
        if (inFunction || node.operatorToken.kind !== K.EqualsToken || !parent
            || !ts.isExpressionStatement(parent) || !ts.isPropertyAccessExpression(left)) break;
        const obj = left.expression;
        const isExports = (ts.isIdentifier(obj) && obj.text === "exports")
          || (ts.isPropertyAccessExpression(obj) && ts.isIdentifier(obj.expression)
              && obj.expression.text === "module" && obj.name.text === "exports");
        const kind = FUNCTION_LIKE.has(node.right.kind) || ts.isClassExpression(node.right)
          ? "function" : "variable";
        const opts = {nameNode: left.name, start: parent.getStart(sf)};
        if (isExports) emit(node, left.name.text, isAlias(left.name) ? "binding" : kind,
                            container, opts);
        else if (ts.isPropertyAccessExpression(obj) && obj.name.text === "prototype"
                 && ts.isIdentifier(obj.expression)) {
          emit(node, left.name.text, kind, container.concat([obj.expression.text]), opts);
        }
        break;
      }
      case K.ImportSpecifier: case K.ExportSpecifier: case K.NamespaceImport:
      case K.NamespaceExport: case K.ImportClause:
        if (name) emit(node, name, "binding", container);
        break;
    }
    const inner = push === null ? container : container.concat([push]);
    const childInFunction = inFunction || FUNCTION_LIKE.has(node.kind);
    ts.forEachChild(node, (child) => visit(child, inner, childInFunction));
  }
  visit(sf, [], false);
}
process.stdout.write(lines.join("\n"));
"""


def script_decls(node: str, typescript_dir: Path, root: Path, files: Sequence[str]) -> list[Decl]:
    """The declarations of TS/JS `files` (relative to `root`), from the compiler API."""
    if not files:
        return []
    done = subprocess.run(
        [node, "-e", TS_LISTER, str(typescript_dir.resolve()), str(root.resolve())],
        input=json.dumps(list(files)).encode(),
        capture_output=True,
        check=False,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(
            "the TypeScript declaration lister failed: "
            + done.stderr.decode(errors="replace").strip()[-400:]
        )
    out = []
    for line in done.stdout.decode().splitlines():
        d = json.loads(line)
        out.append(
            Decl(
                d["file"],
                d["name"],
                d["kind"],
                tuple(d["container"]),
                int(d["line"]),
                max(int(d["line"]), int(d["name_line"])),
                bool(d.get("overload")),
            )
        )
    return out


# ---------------------------------------------------------------------------
# Go, Rust, Ruby, PHP and Java, with Universal Ctags

# ctags kind (per language) -> our kind; kinds not listed are not declarations
# an agent greps for (a Go `package` clause, Ruby `library`: a require).
CTAGS_KINDS: dict[str, dict[str, str]] = {
    "Go": {"func": "function", "struct": "class", "interface": "interface", "type": "type",
           "talias": "type", "const": "variable", "var": "variable", "member": "member",
           "methodSpec": "member", "anonMember": "member", "packageName": "binding"},
    "Rust": {"function": "function", "method": "function", "macro": "function",
             "struct": "class", "enum": "enum", "interface": "interface", "typedef": "type",
             "enumerator": "member", "field": "member", "module": "namespace",
             "variable": "variable", "implementation": "impl"},
    "Ruby": {"class": "class", "module": "namespace", "method": "function",
             "singletonMethod": "function", "accessor": "member", "constant": "variable",
             "alias": "binding"},
    "PHP": {"class": "class", "interface": "interface", "trait": "class", "function": "function",
            "define": "variable", "namespace": "namespace", "variable": "member",
            "alias": "binding"},
    "Java": {"class": "class", "interface": "interface", "enum": "enum", "annotation": "interface",
             "method": "function", "field": "member", "enumConstant": "member",
             "package": "binding"},
}  # fmt: skip
_CTAGS_FIELDS = "--fields=+nKsZ"
# Lines directly above a declaration that belong to it, as graphify's
# tree-sitter nodes may start there: attributes (`#[derive]`, PHP `#[...]`) and
# annotations (`@Override`).
_ATTRIBUTE_STARTS = ("#[", "@")


def source_lines(text: str) -> list[str]:
    """A file's lines as `grep -n`, `git grep -n`, `rg -n`, Universal Ctags and
    graphify number them: split at LF only (a lone CR or a form feed, which
    `str.splitlines` also splits at, ends no line), a CR before the LF dropped."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def ctags_decls(root: Path, files: Sequence[str], ctags: str = "ctags") -> list[Decl]:
    """The declarations of Go/Rust/Ruby/PHP/Java `files` (relative to `root`)."""
    if not files:
        return []
    try:
        done = subprocess.run(
            [ctags, "--output-format=json", _CTAGS_FIELDS, "--sort=no", "-f", "-", "-L", "-"],
            input="\n".join(files).encode(),
            cwd=root,
            capture_output=True,
            check=False,
            timeout=600,
        )
    except OSError as e:
        raise RuntimeError(f"Universal Ctags ({ctags}) cannot run: {e}") from None
    if done.returncode != 0:
        raise RuntimeError("ctags failed: " + done.stderr.decode(errors="replace").strip()[-400:])
    lines_of: dict[str, list[str]] = {}
    out = []
    for raw in done.stdout.decode(errors="replace").splitlines():
        tag = json.loads(raw)
        if tag.get("_type") != "tag":
            continue
        file = str(tag["path"])
        language = CTAGS_LANGUAGES.get(Path(file).suffix)
        kind = CTAGS_KINDS.get(language or "", {}).get(str(tag.get("kind")))
        if kind is None:
            continue
        name = str(tag["name"])
        scope = str(tag.get("scope") or "")
        container = tuple(p for p in scope.replace("::", ".").replace("\\", ".").split(".") if p)
        if language == "PHP" and kind == "member":
            name = "$" + name  # a property, written `$name` where it is declared
        if language in ("PHP", "Java") and kind != "namespace":
            name = name.replace("\\", ".").rsplit(".", 1)[-1]
        line = int(tag["line"])
        if file not in lines_of:
            lines_of[file] = source_lines((root / file).read_text(errors="replace"))
        first = line
        text = lines_of[file]
        while first > 1 and text[first - 2].lstrip().startswith(_ATTRIBUTE_STARTS):
            first -= 1
        # Java overloads by signature: every method and constructor is one
        overload = language == "Java" and kind == "function"
        out.append(Decl(file, name, kind, container, first, line, overload))
    return out


# Java: an anonymous class body (`new Runnable() {`, `new Foo.Bar(x) {`, and, as
# JLS 15.9 allows, `new JTextPane( doc=new Doc() )` with its `{` on the next
# line) and, at its top level, a method declaration (`public void run() {`).
# Universal Ctags emits neither; the class is no definition of Runnable, but
# its methods are definitions of theirs (`run`, scoped by the type they implement).
_JAVA_NEW = re.compile(r"\bnew\s+([A-Za-z_][\w.]*)\s*(?:<[^<>]*>)?\s*\(")
_JAVA_METHOD = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|protected|private|static|final|synchronized"
    r"|abstract|native|default|strictfp)\s+)*(?P<type>[\w.<>\[\], ?]+?)\s+(?P<name>[A-Za-z_]\w*)"
    r"\s*\((?P<rest>.*)$"
)
# a statement, not a declaration: `return f(x);`, `throw new E(x);`
_JAVA_NOT_TYPES = frozenset({"return", "new", "throw", "else", "case", "yield", "assert"})
_JAVA_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')


def _java_body(flat: str, opened: int) -> int:
    """Where the anonymous class body of the `new X(` whose `(` is at `opened`
    starts (its `{`), or -1 when the expression has none."""
    depth, k = 0, opened
    while k < len(flat):
        if flat[k] == "(":
            depth += 1
        elif flat[k] == ")":
            depth -= 1
            if depth == 0:
                break
        k += 1
    k += 1
    while k < len(flat) and flat[k].isspace():
        k += 1
    return k if k < len(flat) and flat[k] == "{" else -1


def java_anonymous_members(text: str, file: str) -> list[Decl]:
    """The methods declared at the top level of each anonymous class body in
    a Java file (a line-based reading: strings and `//` comments are blanked
    before parentheses and braces are counted)."""
    lines = [_JAVA_STRING.sub('""', line).split("//", 1)[0] for line in source_lines(text)]
    flat = "\n".join(lines)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    out = []
    for match in _JAVA_NEW.finditer(flat):
        body = _java_body(flat, match.end() - 1)
        if body < 0:
            continue
        owner = match.group(1).rsplit(".", 1)[-1]
        start = bisect.bisect_right(starts, match.start()) - 1  # the `new` line
        opened = bisect.bisect_right(starts, body) - 1  # the `{` line
        depth = 0
        for k in range(opened, len(lines)):
            part = flat[body : starts[k + 1] - 1] if k == opened else lines[k]
            if k != opened and depth == 1:
                decl = _JAVA_METHOD.match(lines[k])
                rest = decl["rest"] if decl else ""
                if (decl and decl["type"].split()[0] not in _JAVA_NOT_TYPES
                        and ("{" in rest or not rest.rstrip().endswith(";"))):  # fmt: skip
                    name = decl["name"]
                    scope = (owner, f"anonymous@{start + 1}")  # one per class body
                    first = k  # its annotations (`@Override`) belong to it
                    while first > opened + 1 and lines[first - 1].lstrip().startswith("@"):
                        first -= 1
                    out.append(Decl(file, name, "function", scope, first + 1, k + 1, True))
            depth += part.count("{") - part.count("}")
            if depth <= 0:
                break
    return out


# Rust: `const` items, which Universal Ctags 5.9 does not emit (it emits `static`
# items as variables). The Rust Reference's grammar: an item `const NAME: Type`,
# at module level, in a `mod`, or an associated constant of an `impl` or a
# `trait`; one in a function body is an item of that block (a local, as the
# other languages' locals). Read line by line, comments, strings and character
# literals blanked, the enclosing blocks told apart by their headers.
_RUST_CONST = re.compile(
    r"^\s*(?:pub(?:\s*\([^)]*\))?\s+)?const\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*:"
)
_RUST_BLANK = re.compile(r'b?"(?:[^"\\]|\\.)*"|b?\'(?:[^\'\\\n]|\\[^\n]{1,10}?)\'|//.*')
_RUST_HEADER = re.compile(
    r"\b(?:(?P<impl>impl)\b(?P<impl_rest>.*)|trait\s+(?P<trait>[A-Za-z_]\w*)"
    r"|mod\s+(?P<mod>[A-Za-z_]\w*)|(?P<fn>fn)\b)"
)


def _rust_impl_type(header: str) -> str:
    """The type an `impl` header implements for: `impl<T> Buf for &mut T` -> T
    (as Universal Ctags names it), `impl fmt::Display for Version` -> Version."""
    text, depth, kept = header, 0, []
    for char in text:  # drop generic arguments
        if char == "<":
            depth += 1
        elif char == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            kept.append(char)
    text = "".join(kept).split(" where ", 1)[0]
    text = text.split(" for ", 1)[1] if " for " in text else text
    words = re.findall(r"[A-Za-z_]\w*", text.replace("::", " "))
    words = [w for w in words if w not in ("mut", "dyn", "unsafe", "const")]
    return words[-1] if words else ""


def rust_consts(text: str, file: str) -> list[Decl]:
    """The `const` items of a Rust file, scoped by their `mod`, `impl` type or
    `trait`; none inside a function body."""
    out = []
    stack: list[tuple[str, str]] = []  # (kind, name) of each open brace
    header = ""
    block = 0  # /* */ nesting
    for number, raw in enumerate(source_lines(text), 1):
        line = raw
        if block or "/*" in line:
            kept, k = [], 0
            while k < len(line):
                if line.startswith("/*", k):
                    block, k = block + 1, k + 2
                elif block and line.startswith("*/", k):
                    block, k = block - 1, k + 2
                else:
                    kept.append(" " if block else line[k])
                    k += 1
            line = "".join(kept)
        line = _RUST_BLANK.sub('""', line)
        match = _RUST_CONST.match(line)
        at_item_level = all(kind in ("impl", "trait", "mod") for kind, _ in stack)
        if match and at_item_level and match["name"] != "_":
            scope = tuple(name for _, name in stack if name)
            out.append(Decl(file, match["name"], "variable", scope, number, number))
        for char in line:
            if char == "{":
                found = _RUST_HEADER.search(header)
                if found is None:
                    stack.append(("block", ""))
                elif found["impl"]:
                    stack.append(("impl", _rust_impl_type(found["impl_rest"])))
                elif found["trait"]:
                    stack.append(("trait", found["trait"]))
                elif found["mod"]:
                    stack.append(("mod", found["mod"]))
                else:
                    stack.append(("fn", ""))
                header = ""
            elif char == "}":
                if stack:
                    stack.pop()
                header = ""
            elif char == ";":
                header = ""
            else:
                header += char
        header += " "
    return out


def project_index(
    root: Path,
    files: Iterable[str],
    node: str | None = None,
    typescript_dir: Path | None = None,
    ctags: str = "ctags",
) -> DefinitionIndex:
    """Definitions over `files` (relative to `root`): Python with ast, TS/JS
    with the compiler API (needs `node` and `typescript_dir`), the others with
    Universal Ctags."""
    files = sorted(set(files))
    decls: list[Decl] = []
    decls.extend(ctags_decls(root, [f for f in files if f.endswith(CTAGS_SUFFIXES)], ctags))
    for rel in files:
        if rel.endswith(".java"):
            decls.extend(java_anonymous_members((root / rel).read_text(errors="replace"), rel))
        elif rel.endswith(".rs"):
            decls.extend(rust_consts((root / rel).read_text(errors="replace"), rel))
    scripts = []
    for rel in files:
        if rel.endswith(PYTHON_SUFFIXES):
            try:
                decls.extend(python_decls((root / rel).read_bytes(), rel))
            except SyntaxError:
                continue  # a file Python cannot parse defines nothing we can check
        elif rel.endswith(SCRIPT_SUFFIXES):
            scripts.append(rel)
    if scripts:
        if node is None or typescript_dir is None:
            raise RuntimeError("TypeScript files need node and the typescript package")
        decls.extend(script_decls(node, typescript_dir, root, scripts))
    return build_index(decls, files)
