"""The heuristic on the conventions of a Go library that is also a command-line framework.

Such a library keeps its exported API in the files at the root of its module
(``command.go``, ``args.go``) with ``_test.go`` files beside them, generates
shell completion scripts from Go string templates, and runs golangci-lint with
gosec in CI, silencing a false positive with a ``// #nosec`` comment. Every
commit is made by git in a temporary repository and read by the git source, as
a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_GO_MOD = """module github.com/ann/commander

go 1.15

require (
	github.com/spf13/pflag v1.0.5
	gopkg.in/yaml.v3 v3.0.1
)
"""

_COMMAND = """package commander

import "strings"

// Command is one command of a program.
type Command struct {
	Use      string
	commands []*Command
}

// Name returns the command's name, the first word of its Use line.
func (c *Command) Name() string {
	name := c.Use
	i := strings.Index(name, " ")
	if i >= 0 {
		name = name[:i]
	}
	return name
}

func (c *Command) findNext(next string) *Command {
	matches := make([]*Command, 0)
	for _, cmd := range c.commands {
		if cmd.Name() == next {
			return cmd
		}
		if strings.HasPrefix(cmd.Name(), next) {
			matches = append(matches, cmd)
		}
	}

	if len(matches) == 1 {
		return matches[0]
	}

	return nil
}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"go.mod": _GO_MOD, "command.go": _COMMAND})


@pytest.mark.parametrize(
    "silencing",
    [
        "\t\t// Temporarily disable gosec G602, a false positive.\n\t\treturn matches[0] // #nosec G602\n",
        "\t\t//lint:ignore SA5011 the length was checked above\n\t\treturn matches[0]\n",
    ],
    ids=["gosec", "staticcheck"],
)
def test_a_linter_false_positive_silenced_is_low_cleanup_no_user_sees(repo: Repo, silencing: str) -> None:
    """gosec's ``// #nosec G602`` or staticcheck's ``//lint:ignore``, with the reason beside it: the compiled
    library is the same, only the lint passes."""
    silenced = _COMMAND.replace("\t\treturn matches[0]\n", silencing)
    title = "command: temporarily disable G602 due to securego/gosec#1005 (#2022)"
    result = analyse(repo.change(title, {"command.go": silenced}))
    assert result.type in (ChangeType.refactor, ChangeType.chore)
    assert result.importance is Importance.low
    assert not result.flags.user_facing
    assert not result.flags.security


def test_a_nosec_beside_changed_code_is_judged_as_code(repo: Repo) -> None:
    """A ``#nosec`` that comes with a changed statement is a change of code, not a silenced warning."""
    changed = _COMMAND.replace("\t\treturn matches[0]\n", "\t\treturn matches[len(matches)-1] // #nosec G602\n")
    result = analyse(repo.change("command: return the last match", {"command.go": changed}))
    assert result.importance is Importance.medium
    assert result.flags.user_facing


_ACTIVE_HELP = """package commander

import (
	"fmt"
	"strings"
)

const activeHelpEnvVarSuffix = "_ACTIVE_HELP"

// activeHelpEnvVar returns the name of the program's ActiveHelp environment variable: the
// program's name in upper case, with all - replaced by _, then _ACTIVE_HELP.
func activeHelpEnvVar(name string) string {
	activeHelpEnvVar := strings.ToUpper(fmt.Sprintf("%s%s", name, activeHelpEnvVarSuffix))
	return strings.ReplaceAll(activeHelpEnvVar, "-", "_")
}
"""

_ACTIVE_HELP_DOC = """# Active Help

The variable is named `<PROGRAM>_ACTIVE_HELP` where `<PROGRAM>` is the name of your
program in uppercase with any `-` replaced by an `_`.
"""


def _replaced_in_code() -> str:
    return (
        _ACTIVE_HELP.replace('\t"strings"\n', '\t"regexp"\n\t"strings"\n')
        .replace(
            "const activeHelpEnvVarSuffix",
            "var activeHelpEnvVarPrefixSubstRegexp = regexp.MustCompile(`[^A-Z0-9_]`)\n\nconst activeHelpEnvVarSuffix",
        )
        .replace("with all - replaced by _", "with all non-alphanumerics replaced by _")
        .replace(
            '\treturn strings.ReplaceAll(activeHelpEnvVar, "-", "_")\n',
            '\treturn activeHelpEnvVarPrefixSubstRegexp.ReplaceAllString(activeHelpEnvVar, "_")\n',
        )
    )


_REPLACE_TITLE = "Replace all non-alphanumerics in active help env var program prefix (#1940)"


@pytest.fixture
def helped(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path, {"go.mod": _GO_MOD, "active_help.go": _ACTIVE_HELP, "site/content/active_help.md": _ACTIVE_HELP_DOC}
    )


def test_a_restructuring_verb_beside_rewritten_user_docs_is_a_behaviour_change(helped: Repo) -> None:
    """ "Replace ..." reads as a refactor, but the page users read now says the variable is named otherwise."""
    doc = _ACTIVE_HELP_DOC.replace("any `-` replaced", "any non-ASCII-alphanumeric characters replaced")
    files = {"active_help.go": _replaced_in_code(), "site/content/active_help.md": doc}
    result = analyse(helped.change(_REPLACE_TITLE, files))
    assert result.type is not ChangeType.refactor
    assert result.importance is Importance.medium
    assert result.flags.user_facing


_DOC_UTIL = """package doc

import "strings"

func hasSeeAlso(names []string) bool {
	return len(names) > 0
}

func trimName(name string) string {
	return strings.TrimSpace(name)
}
"""


@pytest.mark.parametrize("with_doc_package", [False, True], ids=["code-alone", "doc-package-code"])
def test_a_restructuring_verb_with_no_user_page_changed_stays_a_refactor(
    tmp_path: Path, with_doc_package: bool
) -> None:
    """Without a page users read changed, the title's restructuring verb stands; Go code kept in a ``doc``
    package (the generator of man pages) is code, not a page."""
    before = {"go.mod": _GO_MOD, "active_help.go": _ACTIVE_HELP, "doc/util.go": _DOC_UTIL}
    files = {"active_help.go": _replaced_in_code()}
    if with_doc_package:
        files["doc/util.go"] = _DOC_UTIL.replace("strings.TrimSpace(name)", 'strings.Trim(name, " ")')
    result = analyse(Repo(tmp_path, before).change(_REPLACE_TITLE, files))
    assert result.type is ChangeType.refactor


def test_bandits_nosec_on_a_python_helper_is_a_warning_suppression(tmp_path: Path) -> None:
    """The Python security linter's form of the same directive: ``# nosec B602`` after the flagged call."""
    script = "import subprocess\n\n\ndef run(command):\n    return subprocess.run(command, shell=True)\n"
    repo = Repo(tmp_path, {"pkg/shell.py": script, "pkg/__init__.py": "VERSION = '1.0'\n"})
    silenced = script.replace("shell=True)\n", "shell=True)  # nosec B602\n")
    result = analyse(repo.change("Silence bandit B602 in the shell helper", {"pkg/shell.py": silenced}))
    assert result.importance is Importance.low
    assert not result.flags.user_facing
    assert "warning-suppression" in result.importance_reason
