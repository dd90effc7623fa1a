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
