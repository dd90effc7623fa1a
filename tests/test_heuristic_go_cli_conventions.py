"""The heuristic on the conventions of a Go command-line tool kept by one maintainer.

Such a tool parses its flags by hand (``case "--gap":`` in ``src/options.go``),
builds some files for one operating system alone (``protector_openbsd.go``),
raises its ``go`` line as its dependencies ask, walks directories, formats its
shell integration scripts with shfmt, refreshes its copyright notices each year,
keeps a ``CHANGELOG.md`` whose release sections group their bullets under plain
label bullets (``- Bug fixes``) and gain issue numbers at release time, and lets
a deploy action refresh generated parts of its README. Its titles are plain
sentences that state a purpose ("... to reduce lock contention") or a package
(``matcher: fix ...``). Every commit is made by git in a temporary repository
and read by the git source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_README = '# finder\n\n## Sponsors\n\n<!-- sponsors --><a href="https://github.com/ann">ann</a><!-- sponsors -->\n'

_CHANGELOG = """CHANGELOG
=========

0.31.0
------
- Added `--gap` option to put empty lines between items
- Bug fixes
    - Fixed the cursor jumping after `reload`
    - Fixed a crash on empty input
"""

_READER = """package fzf

import "os"

// readDir lists the entries under root.
func readDir(root string, follow bool) []string {
	entries, _ := os.ReadDir(root)
	var paths []string
	for _, entry := range entries {
		paths = append(paths, entry.Name())
	}
	return paths
}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "README.md": _README,
            "CHANGELOG.md": _CHANGELOG,
            "go.mod": "module github.com/acme/finder\n\ngo 1.20\n",
            "src/reader.go": _READER,
        },
    )


# --------------------------------------------------------------------------- deploy actions


def test_a_deploy_actions_readme_refresh_is_a_chore(repo: Repo) -> None:
    readme = _README.replace("ann</a>", 'ann</a><a href="https://github.com/bob">bob</a>')
    title = "Deploying to master from @ acme/finder@3b0c86e4013abb66f36108aedad4ef81fe2a06e2 🚀"
    result = analyse(repo.change(title, {"README.md": readme}))
    assert result.type == ChangeType.chore
    assert result.importance == Importance.low
    assert not result.flags.user_facing


# --------------------------------------------------------------------------- the changelog


def test_an_entry_nested_under_a_bug_fixes_bullet_is_a_fix(repo: Repo) -> None:
    # The release groups its fixes under a plain bullet, no colon, no heading.
    entry = "    - `--follow` no longer descends into a link to the root directory\n"
    changelog = _CHANGELOG.replace("- Bug fixes\n", "- Bug fixes\n" + entry)
    guard = "\tfor _, entry := range entries {\n\t\tif follow && entry.Name() == root {\n\t\t\tcontinue\n\t\t}\n"
    reader = _READER.replace("\tfor _, entry := range entries {\n", guard)
    files = {"CHANGELOG.md": changelog, "src/reader.go": reader}
    result = analyse(repo.change("Skip links targeting the walker root to avoid walking the disk", files))
    assert result.type == ChangeType.fix
    assert result.importance == Importance.medium


def test_an_entry_beside_a_bug_fixes_bullet_keeps_its_own_words(repo: Repo) -> None:
    # A bullet at the label's depth is the label's sibling, not one of its fixes.
    changelog = _CHANGELOG + "- Added `--no-color` option\n"
    files = {"CHANGELOG.md": changelog, "src/reader.go": _READER.replace("root string", "root string, color bool")}
    result = analyse(repo.change("Plain output for pipes", files))
    assert result.type == ChangeType.feat


# --------------------------------------------------------------------------- moved statements

_MATCHER = """package fzf

// Loop serves requests, dropping the cache when a request sorts or reads anew.
func (m *Matcher) Loop() {
	for request := range m.requests {
		if request.sort != m.sort || request.revision != m.revision {
			m.sort = request.sort
			m.revision = request.revision
			m.mergers = make(map[string]*Merger)
			if !request.revision.compatible(m.revision) {
				m.cache.Clear()
			}
		}
		m.scan(request)
	}
}
"""


def test_a_statement_moved_past_others_changes_behaviour_not_layout(repo: Repo) -> None:
    # The assignment moves below the check that reads it: the cache is cleared again. No formatter moves code.
    repo.change("Add the matcher", {"src/matcher.go": _MATCHER})
    moved = _MATCHER.replace("\t\t\tm.revision = request.revision\n", "").replace(
        "\t\t\t\tm.cache.Clear()\n\t\t\t}\n", "\t\t\t\tm.cache.Clear()\n\t\t\t}\n\t\t\tm.revision = request.revision\n"
    )
    result = analyse(repo.change("matcher: fix chunk cache never getting cleared (#4531)", {"src/matcher.go": moved}))
    assert result.type == ChangeType.fix
    assert result.importance == Importance.medium
    assert result.flags.user_facing


# --------------------------------------------------------------------------- the Go floor


def test_raising_the_go_line_binds_builders_but_breaks_none(repo: Repo) -> None:
    # The go command fetches the toolchain a module's `go` line asks for, as a dependency bump raises it.
    go_mod = "module github.com/acme/finder\n\ngo 1.23.0\n\nrequire github.com/gdamore/tcell/v2 v2.9.0\n"
    result = analyse(repo.change("Bump github.com/gdamore/tcell/v2 from 2.8.1 to 2.9.0 (#4503)", {"go.mod": go_mod}))
    assert result.type == ChangeType.build
    assert result.importance == Importance.medium
    assert not result.flags.breaking


# --------------------------------------------------------------------------- a file walker's words


def test_a_walker_entering_a_directory_twice_is_no_traversal_attack(repo: Repo) -> None:
    # A walker that follows links tracks the directories it visited; the words name its walk, not an attack.
    reader = _READER.replace("\tvar paths []string\n", "\tvar paths []string\n\tseen := map[string]bool{}\n").replace(
        "\t\tpaths = append(paths, entry.Name())\n",
        "\t\tif seen[entry.Name()] {\n\t\t\tcontinue\n\t\t}\n\t\tseen[entry.Name()] = true\n"
        "\t\tpaths = append(paths, entry.Name())\n",
    )
    title = "Use IgnoreDuplicateDirs to prevent duplicate directory traversal"
    result = analyse(repo.change(title, {"src/reader.go": reader}))
    assert not result.flags.security
    assert result.type == ChangeType.fix


def test_directory_traversal_unqualified_is_still_an_attack(repo: Repo) -> None:
    reader = _READER.replace(
        "\t\tpaths = append(paths, entry.Name())\n", '\t\tpaths = append(paths, root+"/"+entry.Name())\n'
    )
    result = analyse(repo.change("Prevent directory traversal in the walker", {"src/reader.go": reader}))
    assert result.flags.security


# --------------------------------------------------------------------------- formatters

_COMPLETION = """__finder_hosts() {
  command cat ~/.ssh/config 2>/dev/null | awk '{print $2}'
  if [ -n "$1" ];then
    echo "$1"
  fi
}
"""


def test_a_shell_formatter_run_is_cleanup(repo: Repo) -> None:
    repo.change("Add host completion", {"shell/completion.bash": _COMPLETION})
    formatted = _COMPLETION.replace("2>/dev/null", "2> /dev/null").replace(";then", "; then")
    result = analyse(repo.change("Apply shfmt to bash script files (make fmt)", {"shell/completion.bash": formatted}))
    assert result.type == ChangeType.refactor
    assert result.importance == Importance.low


# --------------------------------------------------------------------------- options parsed by hand

_OPTIONS = """package fzf

// parseOptions reads the command line, one argument at a time.
func parseOptions(opts *Options, allArgs []string) error {
	for i := 0; i < len(allArgs); i++ {
		arg := allArgs[i]
		switch arg {
		case "-h", "--help":
			opts.Help = true
		case "--walker-path-sep":
			opts.WalkerSep = nextString(allArgs, &i)
		case "--gap":
			opts.Gap = 1
		case "--no-gap":
			opts.Gap = 0
		}
	}
	return nil
}
"""


def test_an_option_dropped_from_a_hand_written_parser_breaks_its_users(repo: Repo) -> None:
    repo.change("Add the option parser", {"src/options.go": _OPTIONS})
    dropped = _OPTIONS.replace('\t\tcase "--walker-path-sep":\n\t\t\topts.WalkerSep = nextString(allArgs, &i)\n', "")
    result = analyse(repo.change("Simplify the walker setup", {"src/options.go": dropped}))
    assert result.flags.breaking
    assert result.type == ChangeType.feat


def test_an_option_given_an_alias_in_its_case_label_is_kept(repo: Repo) -> None:
    repo.change("Add the option parser", {"src/options.go": _OPTIONS})
    aliased = _OPTIONS.replace('case "--gap":', 'case "--gap", "--spacing":')
    result = analyse(repo.change("Accept another name for the gap", {"src/options.go": aliased}))
    assert not result.flags.breaking
    assert result.type == ChangeType.feat


# --------------------------------------------------------------------------- platform files


def test_a_crash_fixed_in_a_go_file_built_for_one_platform_is_narrow(repo: Repo) -> None:
    # Go builds `protector_openbsd.go` on OpenBSD alone: the crash is that platform's.
    before = 'package protector\n\nfunc Protect() {\n\tunix.PledgePromises("stdio rpath tty proc exec")\n}\n'
    repo.change("Add pledge on OpenBSD", {"src/protector/protector_openbsd.go": before})
    after = before.replace("proc exec", "proc exec inet")
    result = analyse(repo.change("Fix crash with --listen (#3483)", {"src/protector/protector_openbsd.go": after}))
    assert result.type == ChangeType.fix
    assert result.importance == Importance.medium


# --------------------------------------------------------------------------- copyright notices


def test_the_yearly_copyright_refresh_is_a_chore(repo: Repo) -> None:
    notice = "Copyright (c) 2013-{year} Ann Author\n"
    plugin = '" Copyright (c) 2013-{year} Ann Author\nfunction! finder#run()\nendfunction\n'
    repo.change("Add the license", {"LICENSE": notice.format(year=2024), "plugin/finder.vim": plugin.format(year=2024)})
    files = {"LICENSE": notice.format(year=2025), "plugin/finder.vim": plugin.format(year=2025)}
    result = analyse(repo.change("Year 2025", files))
    assert result.type == ChangeType.chore
    assert result.importance == Importance.low
    assert not result.flags.user_facing


# --------------------------------------------------------------------------- purposes


def test_a_change_made_to_reduce_lock_contention_is_a_speed_up(repo: Repo) -> None:
    repo.change("Add the chunk list", {"src/constants.go": "package fzf\n\nconst chunkSize int = 100\n"})
    result = analyse(
        repo.change(
            "Increase chunkSize from 100 to 1000 to reduce lock contention",
            {"src/constants.go": "package fzf\n\nconst chunkSize int = 1000\n"},
        )
    )
    assert result.type == ChangeType.perf


def test_a_change_made_to_avoid_a_memory_leak_is_no_speed_up(repo: Repo) -> None:
    reader = _READER.replace(
        "\tentries, _ := os.ReadDir(root)\n", "\tentries, _ := os.ReadDir(root)\n\tdefer clear(entries)\n"
    )
    result = analyse(repo.change("Clear the entries to reduce memory leaks in the walker", {"src/reader.go": reader}))
    assert result.type != ChangeType.perf


def test_a_release_roll_up_of_fixes_does_not_outvote_the_commits_feature(repo: Repo) -> None:
    # The maintainer opens the next release's notes with the feature and lists the fixes already merged.
    notes = (
        "0.32.0\n------\n- Added support for curly underlines in `--color`\n"
        "- Added `alt-gutter` color option\n- Bug fixes\n"
        "    - Fixed symlinks to directories being returned as files\n"
        "    - Fixed SIGHUP handling\n"
        "    - Fixed the preview process not being killed on exit\n\n"
    )
    changelog = _CHANGELOG.replace("0.31.0\n", notes + "0.31.0\n")
    reader = _READER.replace("root string, follow bool", "root string, follow bool, curly bool")
    files = {"CHANGELOG.md": changelog, "src/reader.go": reader}
    result = analyse(repo.change("Add underline style variants and underline color support", files))
    assert result.type == ChangeType.feat


def test_issue_numbers_added_to_old_entries_are_no_new_entries(repo: Repo) -> None:
    annotated = _CHANGELOG.replace("after `reload`\n", "after `reload` (#4652)\n").replace(
        "on empty input\n", "on empty input (#4620)\n"
    )
    changelog = annotated.replace("- Bug fixes\n", "- Wrapped words in the preview window\n- Bug fixes\n")
    reader = _READER.replace("root string, follow bool", "root string, follow bool, wrap bool")
    files = {"CHANGELOG.md": changelog, "src/reader.go": reader}
    result = analyse(repo.change("Word wrapping in the preview window", files))
    assert result.type == ChangeType.feat
