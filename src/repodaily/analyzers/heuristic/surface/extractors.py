"""Small extractors: what one side of a hunk declares of the user-visible surface.

Each reads diff text, not a syntax tree, so it serves any language whose idiom it
names, and each returns :class:`Found` items: a kind, a name, and the value it
declares (a default, or whether a deprecation warns or raises). What changed is
decided by comparing both sides (:mod:`.compare`), never here.
"""

from __future__ import annotations

import functools
import keyword
import re
from collections.abc import Callable, Iterator

from repodaily.analyzers.heuristic.surface.found import Extractor, Found
from repodaily.analyzers.heuristic.surface.headers import header_api, header_file, reads_header
from repodaily.analyzers.heuristic.surface.sides import Side, balanced
from repodaily.models import SurfaceKind

__all__ = ["EXTRACTORS", "RESTATED", "Extractor", "Found", "config_file", "env_file", "public_module"]


#: The value of a declaration that restates what a supertype declares (a Java or Kotlin override): it keeps
#: its name on the side it is on, so a declaration it replaces is no removal, but it is never added or removed
#: itself (callers still reach the supertype's).
RESTATED = "restated"


#: Each extractor asks what a path is for every side of every hunk of its file; the answers are remembered.
_PATHS_REMEMBERED = 4096


def _value(text: str | None) -> str | None:
    """A declared value as a reader would quote it: no surrounding space, quotes, comment or trailing comma."""
    if text is None:
        return None
    value = text.split("  #")[0].strip().rstrip(",").strip()
    return value.strip("\"'") or None


# Command-line options: argparse `add_argument`, optparse `add_option`, click `option`, typer `Option`, and
# pytest's `parser.addoption` / `group.addoption` (`_addoption`), which its plugins declare theirs with.
_CLI_CALL = re.compile(r"\b(?:add_argument|add_option|_?addoption|option|Option)\s*\(")
_FLAG = re.compile(r"""["'](--[A-Za-z0-9][\w-]*)["']""")
_DEFAULT = re.compile(r"\bdefault\s*=\s*")


def cli_options(side: Side) -> Iterator[Found]:
    """Options of argparse/optparse/click/typer calls, however many lines a call spans, with their defaults."""
    if "--" not in side.text:  # every option the pattern takes is spelled `--name`: skip the scan
        return
    for call in _CLI_CALL.finditer(side.text):
        args = balanced(side.text, call.end())
        flag = _FLAG.search(args)
        if flag is None:
            continue
        default = _DEFAULT.search(args)
        yield Found(SurfaceKind.cli_option, flag.group(1), _default(args, default))


def _default(args: str, match: re.Match[str] | None) -> str | None:
    return None if match is None else _value(balanced(args, match.end(), stop_at_comma=True))


# Rust's clap derive: a struct field under `#[arg(...)]` (clap 4) or `#[clap(...)]` (clap 3) is an option
# when the attribute says `long`; its name is `long = "x"` or the field's, kebab-cased. Doc comments and
# other attributes may stand between the attribute and the field.
_CLAP_ATTRIBUTE = re.compile(r"#\[(?:arg|clap)\(")
_CLAP_WORDS = ("#[arg(", "#[clap(")
_CLAP_FIELD = re.compile(
    r"\)\]\s*(?:(?://[^\n]*|#\[[^\n]*\])\s*)*(?:pub(?:\([^)]*\))?\s+)?(?P<field>[a-z_][a-z0-9_]*)\s*:(?!:)"
)
_CLAP_LONG = re.compile(r'\blong\b(?:\s*=\s*"(?P<name>[^"]*)")?')
_CLAP_DEFAULT = re.compile(r"\bdefault_value(?:_t)?\s*=\s*")
_CLAP_ENV = re.compile(r'\benv\s*=\s*"(?P<name>[A-Z][A-Z0-9_]{2,})"')
_RUST_STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def clap_arguments(side: Side) -> Iterator[Found]:
    """Options (and the environment variables they read) that clap derives from a struct's annotated fields."""
    if not any(word in side.text for word in _CLAP_WORDS):
        return
    for attribute in _CLAP_ATTRIBUTE.finditer(side.text):
        args = balanced(side.text, attribute.end())
        field = _CLAP_FIELD.match(side.text, attribute.end() + len(args))
        long = _CLAP_LONG.search(_blank_strings(args))
        if field is None or long is None:
            continue
        named = _CLAP_LONG.match(args, long.start())  # the same place, its string read back
        name = (named.group("name") if named else None) or field.group("field").strip("_").replace("_", "-")
        yield Found(SurfaceKind.cli_option, f"--{name}", _default(args, _CLAP_DEFAULT.search(args)))
        if env := _CLAP_ENV.search(args):
            yield Found(SurfaceKind.env_var, env.group("name"))


def _blank_strings(code: str) -> str:
    """``code`` with every string literal's content blanked, positions kept: words in a help text are no keys."""
    return _RUST_STRING.sub(lambda literal: '"' + " " * (len(literal.group()) - 2) + '"', code)


# Go's flag package and pflag (cobra): `cmd.Flags().StringVarP(&o.x, "name", "n", "def", "usage")`,
# `flag.Int("port", 8080, "usage")`. The name is the first string argument; the default follows it (after
# the shorthand of a `...P` call).
_GO_FLAG = re.compile(
    r"(?:\b(?:Persistent|Local)?Flags\(\)|\bflag)\."
    r"(?P<type>Bool|String|U?Int(?:8|16|32|64)?|Float(?:32|64)|Duration|Count|IP|IPMask|IPNet|BytesHex|BytesBase64|"
    r"StringSlice|StringArray|StringToString|StringToInt(?:64)?|U?Int(?:32|64)?Slice|BoolSlice|Float(?:32|64)Slice|"
    r"DurationSlice|IPSlice|Func|BoolFunc|TextVar)(?P<var>Var)?(?P<short>P)?\("
)
_GO_FLAG_WORDS = ("Flags().", "flag.")
_GO_STRING = re.compile(r'^"(?P<name>[A-Za-z0-9][\w.-]*)"$')


def go_flags(side: Side) -> Iterator[Found]:
    """Flags a Go program declares with the standard ``flag`` package or pflag, with their defaults."""
    if not any(word in side.text for word in _GO_FLAG_WORDS):
        return
    for call in _GO_FLAG.finditer(side.text):
        args = _arguments(balanced(side.text, call.end()))
        if call.group("var"):
            args = args[1:]  # the variable the value is stored in
        name = _GO_STRING.match(args[0]) if args else None
        if name is None:
            continue
        rest = args[2:] if call.group("short") else args[1:]
        default = _value(rest[0]) if len(rest) > 1 else None  # the last argument is the usage text
        yield Found(SurfaceKind.cli_option, f"--{name.group('name')}", default)


# Options a program parses by hand, as the labels of a switch over its arguments: Go's
# `case "-h", "--help":`, and the same in C, Java, JavaScript or C#. Only `--` names count: a short
# option alone (`case "-v":`) may be a value the switch compares, not an option.
_CASE_LABELS = re.compile(r'\bcase\s+(?P<labels>"-{1,2}[A-Za-z0-9][\w-]*"(?:\s*,\s*"-{1,2}[A-Za-z0-9][\w-]*")*)\s*:')
_CASE_FLAG = re.compile(r'"(--[A-Za-z0-9][\w-]*)"')


def case_options(side: Side) -> Iterator[Found]:
    """Options named by the ``case`` labels of a hand-written parser, each alias of a label apart."""
    if 'case "-' not in side.text:  # every label the pattern takes starts so: skip the scan
        return
    for label in _CASE_LABELS.finditer(side.text):
        for flag in _CASE_FLAG.finditer(label.group("labels")):
            yield Found(SurfaceKind.cli_option, flag.group(1))


def _arguments(args: str) -> list[str]:
    """A call's arguments, split at the commas outside brackets and strings."""
    found, index = [], 0
    while index < len(args):
        part = balanced(args, index, stop_at_comma=True)
        found.append(part.strip())
        index += len(part) + 1
    return found


# Environment variables read in Python, Rust, Go, C/C++ and JavaScript.
_ENV_READ = re.compile(
    r"""(?:environ(?:\.get)?\s*[\[(]|[Gg]etenv\s*\(|env::var(?:_os)?\s*\(|LookupEnv\s*\(|process\.env\.)\s*"""
    r"""["']?(?P<name>[A-Z][A-Z0-9_]{2,})\b["']?"""
)
_ENV_WORDS = ("environ", "etenv", "env::var", "LookupEnv", "process.env")
_ENV_DEFAULT = re.compile(r"""["']?\s*,\s*""")
# An `envs.py`-style table: `"VLLM_X": lambda: ...`, and its typed declarations `VLLM_X: int = 0`.
_ENV_ENTRY = re.compile(r"""^\s*["'](?P<name>[A-Z][A-Z0-9_]{2,})["']\s*:""", re.M)


_ENV_FILE = re.compile(r"(^|/)_?(envs?|environment)\.\w+$")


@functools.lru_cache(maxsize=_PATHS_REMEMBERED)
def env_file(path: str) -> bool:
    """A module that tables a project's environment variables (``envs.py``, ``env.py``, ``environment.py``)."""
    return _ENV_FILE.search(path) is not None


def env_vars(side: Side) -> Iterator[Found]:
    """Variables a program reads, with the default it falls back to, and the entries of an environment table."""
    if any(word in side.text for word in _ENV_WORDS):  # every read the pattern takes names one of these
        for read in _ENV_READ.finditer(side.text):
            default = _ENV_DEFAULT.match(side.text, read.end())
            value = _value(balanced(side.text, default.end(), stop_at_comma=True)) if default else None
            yield Found(SurfaceKind.env_var, read.group("name"), value)
    if env_file(side.path):
        for entry in _ENV_ENTRY.finditer(side.text):
            yield Found(SurfaceKind.env_var, entry.group("name"))


# Fields of a dataclass or pydantic model, a class body's annotated assignments. A long value a formatter
# wraps goes on over lines, each ending in a backslash (`x: dict = \`) or inside a parenthesis left open
# (`x: dict = (`, read through in a class body only: a method's local is no field), and is read through:
# the same default laid out anew is no changed default.
_FIELD = re.compile(
    r"^(?P<indent>[ \t]+)(?P<name>[a-z][a-z0-9_]*)\s*:\s*[^=\n]+?=\s*(?P<value>(?:[^\n]*\\\n)*[^\n]+)$", re.M
)
_CONTINUATION = re.compile(r"\s*\\\n\s*")
#: Blanks a formatter may put before a closing bracket or an attribute's dot, or after an opening bracket.
_WRAP_BLANKS = re.compile(r"\s+(?=[.)\]}])|(?<=[(\[{])\s+")
_STRING = re.compile(r""""[^"]*"|'[^']*'""")


def _joined(value: str) -> str:
    """A value written over several lines as one line, however a formatter broke it, without its comments."""
    lines = (line.split("  #")[0] for line in _CONTINUATION.sub(" \n", value).split("\n"))
    return _WRAP_BLANKS.sub("", " ".join(" ".join(lines).split()))


def _parameter(value: str) -> bool:
    """Whether a field-like line (`to_bool: bool = True,`) is a parameter of a signature a formatter spread
    over lines: a class body's field never ends in a comma, each parameter of such a signature does."""
    code = value.split("  #")[0].rstrip()
    return code.endswith(",") and _closed(code)


def _closed(value: str) -> bool:
    """Whether a value read off its line closes every bracket it opens: one that goes on below (a call a formatter
    wraps after its first argument) or a parameter's that ends a signature (`x: int = 0) -> None:`) is cut off,
    and no default to compare."""
    code = _STRING.sub("", value)
    return sum(map(code.count, "([{")) == sum(map(code.count, ")]}"))


#: A public field of a Rust struct, one per line (`pub ignore_bare_repo: bool,`): serde reads it as a key.
_RUST_FIELD = re.compile(r"^[ \t]+pub\s+(?P<name>[a-z][a-z0-9_]*)\s*:\s*[^,;=(){}\n]+,?[ \t]*(//[^\n]*)?$", re.M)
_CONFIG_PATH = re.compile(r"(^|/)[^/]*(config|settings|options|arg_utils)[^/]*(/|\.(py|rs)$)")


@functools.lru_cache(maxsize=_PATHS_REMEMBERED)
def config_file(path: str) -> bool:
    """A Python or Rust module of configuration types: its fields are keys users set (with defaults, in Python)."""
    return path.endswith((".py", ".rs")) and _CONFIG_PATH.search(path) is not None


def config_keys(side: Side) -> Iterator[Found]:
    """Fields declared in configuration modules, with their defaults (``Field(default=...)`` read through).

    A Rust configuration struct's public fields are keys too (serde names a key by its
    field); their defaults live in an `impl Default` apart, so none is read.
    """
    if not config_file(side.path):
        return
    if side.path.endswith(".rs"):
        for field in _RUST_FIELD.finditer(side.text):
            yield Found(SurfaceKind.config_key, field.group("name"), None)
        return
    for field in _FIELD.finditer(side.text):
        if keyword.iskeyword(field.group("name")):  # `else: x = 1` is a statement, not a field
            continue
        value = field.group("value")
        if _parameter(value):
            continue
        if "\n" in value:
            value = _joined(value)
        elif value.strip() == "(" and len(field.group("indent").expandtabs(4)) == 4:
            value = _joined(balanced(side.text, field.end("value")))
        if value.startswith(("Field(", "field(")):
            value = _default(value, _DEFAULT.search(value)) or ""
        yield Found(SurfaceKind.config_key, field.group("name"), _value(value) if _closed(value) else None)


# HTTP routes: FastAPI/Flask/Express decorators and calls, `add_api_route`, Go's `Handle`/`HandleFunc` (with
# the method a Go 1.22 pattern starts with: `"GET /api/tags"`), and the upper-case methods of Go's routers
# (gin, echo: `r.POST("/api/chat", ...)`).
_ROUTE = re.compile(
    r"""(?:\.(?P<method>get|post|put|delete|patch|route|api_route|websocket|GET|POST|PUT|DELETE|PATCH|HEAD)\s*\(|"""
    r"""(?:add_api_route|add_route|HandleFunc|\bHandle)\s*\()\s*["']"""
    r"""(?:(?P<verb>GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) )?(?P<path>/[^"'\s]*)["']"""
)
_ROUTE_WORDS = ("'/", '"/', "GET /", "POST /", "PUT /", "DELETE /", "PATCH /", "HEAD /", "OPTIONS /")


def http_routes(side: Side) -> Iterator[Found]:
    """Routes a server answers, named by method and path (``POST /v1/chat``)."""
    if not _any_in(_ROUTE_WORDS, side.text):  # a route is a quoted path, or a method and a path: skip the scan
        return
    for route in _ROUTE.finditer(side.text):
        method = (route.group("method") or route.group("verb") or "route").upper()
        yield Found(SurfaceKind.http_route, f"{method} {route.group('path')}")


# Registries: Hugging Face architecture names as keys (`"LlamaForCausalLM": ...`), backend enum members and calls,
# and the hardware platforms a project runs on: a class subclassing its `Platform` base (`class XpuPlatform(Platform)`).
# An architecture mapped to a bare version string (`"MotifForCausalLM": "0.10.2"`) is the record of a
# release that last supported it, kept beside the registry once the implementation goes: no registration.
_ARCH = re.compile(r"""^\s*["'](?P<name>[A-Z]\w*For[A-Z]\w+)["']\s*:(?!\s*["'][\d.]+["'])""", re.M)
_BACKEND = re.compile(
    r"""^\s*(?P<member>[A-Z][A-Z0-9_]+)\s*=\s*["'][\w.]*Backend["']|"""
    r"""register_\w*backend\w*\s*\(\s*["'](?P<called>[\w.-]+)["']""",
    re.M,
)
_PLATFORM = re.compile(r"^class\s+(?P<name>\w+)\(\s*(?:\w+\.)*\w*Platform(?:Base)?\s*[,)]", re.M)
#: A type alias listing by name the backends users choose from (`MoEBackend = Literal["triton", "marlin"]`, the
#: values a `--moe-backend` option or config key accepts): each string is a backend. A hunk that starts inside
#: a long list shows its opening line only as the header git names after ``@@``.
_BACKEND_CHOICES = re.compile(
    r"^\s*\w*Backend\w*\s*(?::\s*[\w.]+\s*)?=\s*(?:typing\.)?Literal\[(?P<members>[^\]]*)", re.M
)
_CHOICE = re.compile(r"""["']([\w.-]+)["']""")
_COMMENT = re.compile(r"#[^\n]*")


def registry_entries(side: Side) -> Iterator[Found]:
    """Model architectures and backends a registry maps to their implementation (or a type alias lists by name),
    and platforms defined."""
    # Cheap substring checks first: most hunks name neither, and the patterns scan every line.
    if "For" in side.text:
        for arch in _ARCH.finditer(side.text):
            yield Found(SurfaceKind.model_arch, arch.group("name"))
    if "Platform" in side.text:
        for platform in _PLATFORM.finditer(side.text):
            yield Found(SurfaceKind.platform, platform.group("name"))
    if "ackend" not in side.text and "ackend" not in side.header:
        return
    for backend in _BACKEND.finditer(side.text):
        yield Found(SurfaceKind.backend, backend.group("member") or backend.group("called"))
    for name in _backend_choices(side):
        yield Found(SurfaceKind.backend, name)


def _backend_choices(side: Side) -> Iterator[str]:
    """The backends a `...Backend = Literal[...]` alias lists on this side: opened on it, or by the hunk's header."""
    if "Literal[" not in side.text and "Literal[" not in side.header:
        return
    lists = [match.group("members") for match in _BACKEND_CHOICES.finditer(side.text)]
    if _BACKEND_CHOICES.match(side.header):
        lists.append(side.text.partition("]")[0])
    for members in lists:
        yield from _CHOICE.findall(_COMMENT.sub("", members))


# Metrics a program exports: Prometheus client constructors (`Counter("x_total", ...)`, `Gauge(name="x")`,
# a wrapper such as `self._counter_cls(name=...)`), OpenTelemetry's `create_counter("x")` and the Rust
# `register_counter!("x", ...)` macros. Dashboards and alerts query them by name.
_METRIC_CALL = re.compile(
    r"(?:\b(?:Counter|Gauge|Histogram|Summary)|_(?:counter|gauge|histogram)_cls|"
    r"\bcreate_(?:counter|gauge|histogram|up_down_counter)|\bregister_\w*(?:counter|gauge|histogram)\w*!)\s*\("
)
_METRIC_WORDS = ("ounter", "auge", "istogram", "Summary")
_METRIC_NAME = re.compile(r"""^\s*(?:name\s*=\s*)?["'](?P<name>[a-zA-Z_:][\w:.]*)["']""")
_METRIC_KEYWORD = re.compile(r"""\bname\s*=\s*["'](?P<name>[a-zA-Z_:][\w:.]*)["']""")


def metrics(side: Side) -> Iterator[Found]:
    """Metrics registered by name, read from the constructor call's first argument or its ``name=``."""
    if not any(word in side.text for word in _METRIC_WORDS):
        return
    for call in _METRIC_CALL.finditer(side.text):
        args = balanced(side.text, call.end())
        named = _METRIC_NAME.match(args) or _METRIC_KEYWORD.search(args)
        # A metric name has a namespace or a unit; a bare word is a label, a key or a file name.
        if named is not None and ("_" in named.group("name") or ":" in named.group("name")):
            yield Found(SurfaceKind.metric, named.group("name"))


# Top-level public definitions in Python, Rust, JavaScript/TypeScript and Go.
_PUBLIC = re.compile(
    r"^(?:(?:async\s+)?def|class|pub\s+(?:fn|struct|enum|trait)|export\s+(?:default\s+)?"
    r"(?:async\s+)?(?:function|class|const|interface|type)|func)\s+(?P<name>[A-Za-z]\w*)",
    re.M,
)


@functools.lru_cache(maxsize=_PATHS_REMEMBERED)
def public_module(path: str) -> bool:
    """A module users import: no path part is private (``_x``), ``__init__`` aside."""
    return not any(part.startswith("_") and not part.startswith("__init__.") for part in path.split("/"))


def public_api(side: Side) -> Iterator[Found]:
    """Functions and classes defined at the top level of a public module (Go: exported, capitalised).

    C and C++ headers declare theirs in another grammar, read by :func:`.headers.header_api`.
    """
    if not public_module(side.path) or header_file(side.path):
        return
    for definition in _PUBLIC.finditer(side.text):
        name = definition.group("name")
        if not definition.group(0).startswith("func") or name[0].isupper():
            yield Found(SurfaceKind.public_api, name)


#: A Python package's root module: ``pkg/__init__.py`` or ``src/pkg/__init__.py``.
_PACKAGE_ROOT = re.compile(r"(?:src/)?[A-Za-z_]\w*/__init__\.py")
#: A name a root module declares public: an entry of its ``__all__`` on a line of its own ("Name",).
#: Its imports are not counted: a name moved behind a lazy ``__getattr__`` is still offered.
_ALL_ENTRY = re.compile(r"^[ \t]*([\"'])(?P<name>[A-Za-z]\w*)\1,?[ \t]*$", re.M)


def package_root(path: str) -> bool:
    """Whether ``path`` is a Python package's root module, whose exports are what ``import pkg`` offers."""
    return _PACKAGE_ROOT.fullmatch(path) is not None


def root_exports(side: Side) -> Iterator[Found]:
    """The names a Python package's root module declares public: what ``import pkg`` offers its users."""
    if not package_root(side.path):
        return
    for entry in _ALL_ENTRY.finditer(side.text):
        yield Found(SurfaceKind.public_api, entry.group("name"))


# Deprecations: a warning or an error whose message says "deprecated" (or that the thing "will be removed" or
# "has been moved to" another place), the thing it names, and what replaces it.
_DEPRECAT = re.compile(r"deprecat|\bwill be removed\b|\b(?:has|have) been (?:moved|renamed) to\b", re.I)
_NOTICE_WORDS = ("deprecat", "will be removed", "been moved to", "been renamed to")
#: A warning: a ``warn`` call, the warning class, a deprecation helper (``@deprecated(``, ``deprecate("x", ...)``).
#: Not Rust's ``#[deprecated(note = ...)]``: :func:`rust_deprecations` reads it by the item it marks, so a
#: note reworded is no deprecation ending and another starting.
_WARNS = re.compile(r"warn|DeprecationWarning|(?<!#\[)deprecated?\s*\(", re.I)
_RAISES = re.compile(r"\braise\b|\bthrow\b|Error\s*\(|panic!")
_SUBJECT = re.compile(
    r"""(--[A-Za-z0-9][\w-]*)|`([^`\s]+)`|["']([A-Za-z_][\w.-]*)["']|\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b|"""
    r"""\b([A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+)(?!\.?\w|\s*\()"""
)
_REPLACEMENT = re.compile(
    r"""(?:\buse|in favou?r of|replaced by|switch to|migrate to|moved to|renamed to)\s+(?:the\s+)?"""
    r"""[`'"]?(?P<name>--?[\w.-]+|[A-Za-z_][\w.]*)""",
    re.I,
)
_WINDOW = 2
#: A string literal holding words (a message), and the deprecation word as a name in code: a parameter,
#: variable or key called ``deprecated`` (``deprecated = attrs.get("deprecated", False)``, ``if deprecated:``),
#: as libraries that let their users mark commands deprecated write it; not a decorator (``@deprecated``,
#: ``#[deprecated]``) or a docstring's ``.. deprecated::``.
_PROSE_STRING = re.compile(r""""[^"\n]*\s[^"\n]*"|'[^'\n]*\s[^'\n]*'""")
_CODE_NAME = re.compile(
    r"""(["'])[a-z_]*deprecat\w*\1|(?<![@\[])(?<!\.\. )\b[a-z_]*deprecat\w*\b(?=\s*(?:[=,:)\]]|$))"""
)


def _notice(line: str) -> bool:
    """Whether ``line`` says something is deprecated: in a message, or in code other than a name.

    A line that only reads a setting called ``deprecated`` says nothing is; without this, an
    unrelated error raised beside it would read as a deprecation that now raises.
    """
    if not _DEPRECAT.search(line):
        return False
    if any(_DEPRECAT.search(text) for text in _PROSE_STRING.findall(line)):
        return True
    return _DEPRECAT.search(_CODE_NAME.sub("", _PROSE_STRING.sub(" ", line))) is not None


def deprecations(side: Side) -> Iterator[Found]:
    """Deprecation messages: ``warns`` or ``raises``, with the name they deprecate and the replacement they name.

    The name is looked for on the message's line, then below it, then above it (a message
    split over several string literals), and is never the replacement the message names.
    """
    lowered = side.text.lower()
    if not any(word in lowered for word in _NOTICE_WORDS):  # a substring scan rules out most hunks at once
        return
    lines = side.text.splitlines()
    for index, line in enumerate(lines):
        if not _notice(line):
            continue
        window = "\n".join(lines[max(0, index - _WINDOW) : index + _WINDOW + 1])
        raises = _raises(line, window)
        if raises is None:
            continue
        replacement = _REPLACEMENT.search(window)
        instead = replacement.group("name").rstrip(".") if replacement else None
        nearby = [line, *lines[index + 1 : index + _WINDOW + 1], *reversed(lines[max(0, index - _WINDOW) : index])]
        name = next((name for text in nearby for name in _subjects(text) if name != instead), None)
        if name is not None:
            yield Found(SurfaceKind.deprecation, name, "raises" if raises else "warns", instead, line.strip())


def _raises(line: str, window: str) -> bool | None:
    """Whether a deprecation notice raises (True) or warns (False), or neither (None).

    A notice line that is itself a statement (``warnings.warn(...)``, ``raise ...``, its
    strings aside) says which; only a bare message, split from its call, is judged by the
    lines around it. Otherwise a guard raising another error beside a new warning (a
    conflict of two arguments) would read as the deprecation now raising.
    """
    code = _PROSE_STRING.sub(" ", line)
    if _RAISES.search(code):
        return True
    if _WARNS.search(code):
        return False
    if _RAISES.search(window):
        return True
    return False if _WARNS.search(window) else None


def _subjects(text: str) -> Iterator[str]:
    """The names a line of a deprecation message quotes, the word "deprecated" itself aside."""
    for match in _SUBJECT.finditer(text):
        if not _DEPRECAT.search(match.group(0)):
            yield next(group for group in match.groups() if group)


# Rust marks a public item deprecated with an attribute above it (`#[deprecated]`, `#[deprecated = "..."]`,
# `#[deprecated(since = "0.29.0", note = "use X instead")]`, its note a string that may span lines), before
# other attributes and comments; the compiler then warns its users through the transition period, as Java's
# `@Deprecated` does. It marks an item, a public field, or on a type's inherent `impl` block every method of
# the type (not on a trait's `impl ... for`, where it does nothing).
_RUST_NOTE = r'"(?:[^"\\]|\\[\s\S])*"'
_RUST_DEPRECATED = re.compile(
    rf"^[ \t]*#\[deprecated\b(?P<notice>(?:\s*=\s*{_RUST_NOTE}|\s*\((?:[^()\"]|{_RUST_NOTE})*\))?)\s*\]"
    r"(?:\s*(?:#\[|//)[^\n]*){0,8}\s*(?:pub[ \t]+(?:"
    r"(?:(?:const|async|unsafe)[ \t]+)*(?:fn|struct|enum|trait|type|const|static|mod|union)[ \t]+(?P<item>[A-Za-z_]\w*)"
    r"|(?P<field>[a-z_]\w*)[ \t]*:(?!:))"
    r"|impl(?:<[^>\n]*>)?[ \t]+(?P<impl>[A-Za-z_]\w*)(?![^{\n]*\bfor\b))",
    re.M,
)


def rust_deprecations(side: Side) -> Iterator[Found]:
    """Public Rust items a ``#[deprecated]`` attribute marks, with the replacement its note names."""
    for match in _RUST_DEPRECATED.finditer(side.text):
        replacement = _REPLACEMENT.search(match.group("notice"))
        instead = replacement.group("name").rstrip(".") if replacement else None
        name = match.group("item") or match.group("field") or match.group("impl")
        yield Found(SurfaceKind.deprecation, name, "warns", instead)


# JavaScript and TypeScript mark an API deprecated with a doc comment's `@deprecated` tag (JSDoc, TSDoc):
# `/** @deprecated use getInitialState */` above a declaration, or a ` * @deprecated ...` line of a longer
# comment. Editors strike each use through and the language service reports it, so users are warned through
# the transition period as a warning call would. Read by the declaration the comment marks, as Rust's
# attribute is: the first line after the comment, its keywords and modifiers aside.
_DOC_DEPRECATED = re.compile(
    r"^[ \t]*(?:/\*\*|\*)[ \t]*@deprecated\b(?P<notice>[^\n]*)(?:\n[ \t]*\*(?!/)[^\n]*)*(?:\n[ \t]*\*/)?"
    r"\n[ \t]*(?:(?:export|declare|default|public|protected|static|readonly|abstract|async|function\*?|const|let|var"
    r"|class|interface|type|enum|namespace|get|set)[ \t]+)*(?P<name>[A-Za-z_$][\w$]*)",
    re.M,
)
_SCRIPTS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def doc_deprecations(side: Side) -> Iterator[Found]:
    """Declarations of a public JavaScript or TypeScript module a doc comment's ``@deprecated`` tag marks."""
    if not public_module(side.path):
        return
    for match in _DOC_DEPRECATED.finditer(side.text):
        name = match.group("name")
        if name == "private":  # a member the class keeps to itself: no user calls it
            continue
        replacement = _REPLACEMENT.search(match.group("notice"))
        instead = replacement.group("name").rstrip(".") if replacement else None
        yield Found(SurfaceKind.deprecation, name, "warns", instead)


def _holds(*words: str, lower: bool = False) -> Callable[[str, str], bool]:
    """Whether a patch (lower-cased with ``lower``) holds any of ``words``."""
    if lower:
        return lambda _, patch: _any_in(words, patch.lower())
    return lambda _, patch: _any_in(words, patch)


def _any_in(words: tuple[str, ...], text: str) -> bool:
    return any(word in text for word in words)


def _finds(pattern: str) -> Callable[[str, str], bool]:
    """Whether ``pattern`` is found anywhere in a patch."""
    regex = re.compile(pattern)
    return lambda _, patch: regex.search(patch) is not None


_ARCH_WORD = re.compile("For[A-Z]")


def _registry_words(_: str, patch: str) -> bool:
    """Whether a patch holds what one of the three registry patterns does (substrings first: they are cheaper)."""
    return "Platform" in patch or "ackend" in patch or _ARCH_WORD.search(patch) is not None


# What starts a line of a side where `_PUBLIC` matches: a line break (any `str.splitlines` splits at),
# the line's diff marker, then the first word the pattern takes.
_TOP_LEVEL = _finds(r"[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029][-+ ](?:async|def|class|pub|export|func)")


#: Every extractor of source files; dependency floors are read from manifests apart (:mod:`.floors`).
EXTRACTORS: tuple[Extractor, ...] = (
    Extractor(cli_options, _holds("--")),
    Extractor(clap_arguments, _holds(*_CLAP_WORDS)),
    Extractor(go_flags, lambda path, patch: path.endswith(".go") and _any_in(_GO_FLAG_WORDS, patch)),
    Extractor(case_options, _holds('case "-')),
    Extractor(env_vars, lambda path, patch: env_file(path) or _holds(*_ENV_WORDS)(path, patch)),
    Extractor(config_keys, lambda path, _: config_file(path)),
    Extractor(http_routes, _holds(*_ROUTE_WORDS)),
    Extractor(metrics, _holds(*_METRIC_WORDS)),
    Extractor(registry_entries, _registry_words),
    # Java and Kotlin declare visibility their own way (`surface.jvm`), C and C++ headers theirs (`header_api`).
    Extractor(
        public_api,
        lambda path, patch: (
            not path.endswith((".java", ".kt"))
            and not header_file(path)
            and public_module(path)
            and _TOP_LEVEL(path, patch)
        ),
    ),
    Extractor(header_api, reads_header),
    Extractor(root_exports, lambda path, _: package_root(path)),
    Extractor(deprecations, _holds(*_NOTICE_WORDS, lower=True)),
    Extractor(rust_deprecations, lambda path, patch: path.endswith(".rs") and "#[deprecated" in patch),
    Extractor(doc_deprecations, lambda path, patch: path.endswith(_SCRIPTS) and "@deprecated" in patch),
)
