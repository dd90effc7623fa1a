"""The git source against real repositories built with git in a temporary directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.errors import SourceError
from repodaily.models import Commit, FileChange, FileStatus
from repodaily.sources.git import GitRepository, collect_commits, infer_repo_name, open_repository

SHANGHAI = ZoneInfo("Asia/Shanghai")
DAY_START = datetime(2026, 2, 9, 0, 0, 0, tzinfo=SHANGHAI)
DAY_END = datetime(2026, 2, 9, 23, 59, 59, tzinfo=SHANGHAI)


def at(text: str) -> datetime:
    """An aware datetime from ISO text with its own offset."""
    return datetime.fromisoformat(text)


def inside(hour: int, minute: int = 0) -> datetime:
    """A moment of the report day, stored as UTC the way many pushes are."""
    return datetime(2026, 2, 9, hour, minute, tzinfo=SHANGHAI).astimezone(UTC)


def collect(repo: GitRepository, **kwargs: int) -> list[Commit]:
    return collect_commits(repo, DAY_START, DAY_END, **kwargs)


def open_local(builder: RepoBuilder, cache: Path, **kwargs: str) -> GitRepository:
    return open_repository(str(builder.path), cache_dir=cache, **kwargs)


def files_by_path(commit: Commit) -> dict[str, FileChange]:
    return {f.path: f for f in commit.files}


def numstat(builder: RepoBuilder, sha: str) -> dict[str, tuple[int, int] | None]:
    """``git show --numstat`` of one commit, first-parent, as {path: (added, deleted)}; None for binary."""
    out = subprocess.run(
        ["git", "show", "--numstat", "-z", "-M", "--diff-merges=first-parent", "--format=", sha],
        cwd=builder.path,
        capture_output=True,
        check=True,
    ).stdout
    result: dict[str, tuple[int, int] | None] = {}
    fields = out.lstrip(b"\n").split(b"\0")
    i = 0
    while i < len(fields) and fields[i].strip():
        added, deleted, path = fields[i].strip(b"\n").split(b"\t", 2)
        if not path:  # a rename: the old and new paths follow
            path, i = fields[i + 2], i + 2
        i += 1
        counts = None if added == b"-" else (int(added), int(deleted))
        result[path.decode()] = counts
    return result


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def builder(tmp_path: Path) -> RepoBuilder:
    repo = RepoBuilder(tmp_path / "repo")
    repo.commit("Initial import", when=at("2026-01-01T00:00:00+00:00"), files={"README.md": "hello\n"})
    return repo


# --------------------------------------------------------------------------- the window


def test_day_edges_are_cut_in_the_report_timezone_whatever_offset_git_stored(builder: RepoBuilder, cache: Path) -> None:
    before = builder.commit("23:59:59 the day before", when=at("2026-02-08T07:59:59-08:00"))  # 15:59:59Z
    first = builder.commit("00:00:00 of the day", when=at("2026-02-09T01:00:00+09:00"))  # 16:00:00Z
    last = builder.commit("23:59:59 of the day", when=at("2026-02-09T15:59:59+00:00"))
    after = builder.commit("00:00:00 the day after", when=at("2026-02-09T11:00:00-05:00"))  # 16:00:00Z

    commits = collect(open_local(builder, cache))

    assert [c.sha for c in commits] == [last, first]
    assert before not in {c.sha for c in commits} and after not in {c.sha for c in commits}
    assert commits[1].committed_at.utcoffset() == timedelta(hours=9)
    assert commits[1].committed_at == at("2026-02-08T16:00:00+00:00")


def test_committer_date_decides_not_author_date(builder: RepoBuilder, cache: Path) -> None:
    authored_long_ago = builder.commit(
        "Landed today, written last year", when=inside(10), authored=at("2025-03-01T12:00:00+02:00")
    )
    builder.commit("Written today, landed tomorrow", when=inside(10) + timedelta(days=1), authored=inside(11))

    commits = collect(open_local(builder, cache))

    assert [c.sha for c in commits] == [authored_long_ago]
    assert commits[0].authored_at == at("2025-03-01T12:00:00+02:00")
    assert commits[0].authored_at.utcoffset() == timedelta(hours=2)


def test_only_first_parent_commits_and_the_merge_with_its_first_parent_diff(builder: RepoBuilder, cache: Path) -> None:
    builder.git("checkout", "-q", "-b", "side")
    side_one = builder.commit("Side one", when=inside(9), files={"side.txt": "a\nb\n"})
    side_two = builder.commit("Side two", when=inside(10), files={"side.txt": "a\nb\nc\n"})
    builder.git("checkout", "-q", "main")
    on_main = builder.commit("Main work", when=inside(11), files={"main.txt": "m\n"})
    merge = builder.merge("side", "Merge branch 'side'", when=inside(12))

    commits = collect(open_local(builder, cache))

    assert [c.sha for c in commits] == [merge, on_main]
    assert {side_one, side_two}.isdisjoint(c.sha for c in commits)
    merged = commits[0]
    assert merged.parents == [on_main, side_two]
    assert [(f.path, f.status, f.additions) for f in merged.files] == [("side.txt", FileStatus.added, 3)]


def test_commits_come_newest_first_in_first_parent_order(builder: RepoBuilder, cache: Path) -> None:
    # Committer dates out of order on purpose: order follows history, not the clock.
    shas = [builder.commit(f"Change {n}", when=inside(hour)) for n, hour in enumerate([8, 14, 9, 20])]

    commits = collect(open_local(builder, cache))

    assert [c.sha for c in commits] == list(reversed(shas))


def test_a_commit_with_an_old_committer_date_does_not_end_the_walk(builder: RepoBuilder, cache: Path) -> None:
    earlier = builder.commit("Landed in the morning", when=inside(8))
    builder.commit("Fast-forwarded from an old local branch", when=at("2025-11-01T00:00:00+00:00"))
    later = builder.commit("Landed in the evening", when=inside(20))

    commits = collect(open_local(builder, cache))

    assert [c.sha for c in commits] == [later, earlier]


# Header dates as other tools have written them; git prints them, so the source must read them.
_NOON = int(inside(12).timestamp())
_ODD_DATES = [
    # (author date, committer date, committer offset read, beginnings of the date_issues)
    (f"{_NOON} +9999", f"{_NOON} +9999", 0, ["author date: offset +9999", "committer date: offset +9999"]),
    (f"{_NOON} -0000", f"{_NOON} -0000", 0, []),
    (f"{_NOON} +0800", f"{_NOON} +0099", 0, ["committer date: offset +0099"]),
    (f"{_NOON} +0800", f"{_NOON} -1130", -11.5, []),
    ("99999999999999 +0000", f"{_NOON} +0800", 8, ["author date: timestamp 99999999999999 is out of range"]),
    ("253402300800 +0000", f"{_NOON} +0800", 8, ["author date: timestamp 253402300800"]),
    ("-100 +0000", f"{_NOON} +0800", 8, ["author date: git cannot parse it"]),
    (f"{_NOON}", f"{_NOON} +0800", 8, ["author date: git cannot parse it"]),
]


@pytest.mark.parametrize(("authored", "committed", "offset_hours", "issues"), _ODD_DATES)
def test_a_header_date_no_clock_shows_is_read_and_noted_not_fatal(
    builder: RepoBuilder, cache: Path, authored: str, committed: str, offset_hours: float, issues: list[str]
) -> None:
    sha = builder.write_commit(f"A <a@x> {authored}".encode(), f"C <c@x> {committed}".encode(), b"Odd dates\n")

    (commit,) = collect(open_local(builder, cache))

    assert commit.sha == sha and commit.subject == "Odd dates"
    assert commit.committed_at == inside(12)  # the instant is exact: the window and the table rely on it
    assert commit.committed_at.utcoffset() == timedelta(hours=offset_hours)
    assert commit.authored_at.tzinfo is not None
    assert len(commit.date_issues) == len(issues)
    assert all(noted.startswith(prefix) for noted, prefix in zip(commit.date_issues, issues, strict=True))


def test_a_broken_ident_keeps_the_commit_and_the_walk_going(builder: RepoBuilder, cache: Path) -> None:
    earlier = builder.commit("Landed in the morning", when=inside(8))
    no_author_end = builder.write_commit(
        f"A <a@x {_NOON} +0800".encode(), f"C <c@x> {_NOON} +0800".encode(), b"Author line lacks its '>'\n"
    )
    builder.write_commit(f"A <a@x> {_NOON} +0800".encode(), f"C <c@x {_NOON} +0800".encode(), b"Committer too\n")
    later = builder.commit("Landed in the evening", when=inside(20))

    commits = collect(open_local(builder, cache))

    # git dates an unparsable committer line at the epoch, so that commit is in no day.
    assert [c.sha for c in commits] == [later, no_author_end, earlier]
    odd = commits[1]
    assert odd.author_name == "" and odd.authored_at == datetime(1970, 1, 1, tzinfo=UTC)
    assert odd.date_issues == ["author date: git cannot parse it; read as 1970-01-01 UTC"]


def test_an_empty_window_gives_no_commits(builder: RepoBuilder, cache: Path) -> None:
    assert collect(open_local(builder, cache)) == []


def test_naive_datetimes_are_refused(builder: RepoBuilder, cache: Path) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        collect_commits(open_local(builder, cache), datetime(2026, 2, 9), datetime(2026, 2, 10))


# --------------------------------------------------------------------------- files and patches


def test_file_statuses_binary_mode_only_and_empty_files(builder: RepoBuilder, cache: Path) -> None:
    builder.write("old_name.py", "def f():\n    return 1\n" * 20)
    builder.write("doomed.txt", "bye\n")
    builder.write("script.sh", "echo hi\n")
    builder.commit("Setup", when=at("2026-01-02T00:00:00+00:00"))
    builder.write("README.md", "hello\nworld\n")
    builder.remove("doomed.txt")
    builder.move("old_name.py", "new_name.py")
    builder.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01")
    builder.write("empty.txt", "")
    (builder.path / "script.sh").chmod(0o755)
    builder.commit("Everything at once", when=inside(12))

    files = files_by_path(collect(open_local(builder, cache))[0])

    assert files["README.md"].status == FileStatus.modified
    assert (files["README.md"].additions, files["README.md"].deletions) == (1, 0)
    assert files["README.md"].patch.startswith("@@ -1 +1,2 @@\n hello\n+world\n")
    assert files["doomed.txt"].status == FileStatus.deleted
    assert files["doomed.txt"].deletions == 1
    assert files["new_name.py"].status == FileStatus.renamed
    assert files["new_name.py"].old_path == "old_name.py"
    assert files["new_name.py"].patch == ""
    assert files["logo.png"].binary and files["logo.png"].status == FileStatus.added
    assert (files["logo.png"].additions, files["logo.png"].deletions, files["logo.png"].patch) == (0, 0, "")
    assert files["empty.txt"].status == FileStatus.added and files["empty.txt"].patch == ""
    assert files["script.sh"].status == FileStatus.modified and files["script.sh"].patch == ""
    assert len(files) == 6


def test_counts_equal_git_numstat(builder: RepoBuilder, cache: Path) -> None:
    tricky = "diff --git a/x b/x\n@@ -1 +1 @@\n--- a/x\n+++ b/x\n\n\\ not a marker\n"
    builder.commit(
        "Add files",
        when=inside(9),
        files={"a.py": "".join(f"line {n}\n" for n in range(50)), "tricky.txt": tricky, "nonl.txt": "a\nb"},
    )
    builder.commit(
        "Edit files",
        when=inside(10),
        files={
            "a.py": "".join(f"line {n}\n" if n % 7 else f"changed {n}\n" for n in range(60)),
            "tricky.txt": tricky.replace("@@", "@@@") + "-- trailing\n",
            "nonl.txt": "a\nc\n",
            "README.md": "",
        },
    )

    commits = collect(open_local(builder, cache))

    assert len(commits) == 2
    for commit in commits:
        expected = numstat(builder, commit.sha)
        assert {f.path: (f.additions, f.deletions) for f in commit.files} == expected


def test_truncated_patch_keeps_exact_counts(builder: RepoBuilder, cache: Path) -> None:
    generated = "".join(f"value_{n} = {n}\n" for n in range(20_000))
    one_long_line = "x" * 200_000 + "\n"
    builder.commit(
        "Add generated tables",
        when=inside(9),
        files={"gen/table.py": generated, "gen/minified.js": one_long_line, "small.txt": "ok\n"},
    )

    commit = collect(open_local(builder, cache), max_patch_bytes=2_000)[0]
    files = files_by_path(commit)

    table = files["gen/table.py"]
    assert table.patch_truncated
    assert 0 < len(table.patch.encode()) <= 2_000
    assert table.patch.startswith("@@ -0,0 +1,20000 @@\n+value_0 = 0\n")
    assert (table.additions, table.deletions) == (20_000, 0)
    minified = files["gen/minified.js"]
    assert minified.patch_truncated and minified.additions == 1
    assert not files["small.txt"].patch_truncated and files["small.txt"].patch == "@@ -0,0 +1 @@\n+ok\n"
    assert {p: (f.additions, f.deletions) for p, f in files.items()} == numstat(builder, commit.sha)


def test_paths_with_spaces_unicode_and_quotes_come_out_right(builder: RepoBuilder, cache: Path) -> None:
    names = ["docs/my notes.md", "docs/tést ü.txt", 'say "hi".txt', "tab\there.txt", "a b/c b/d.txt"]
    builder.commit("Odd names", when=inside(9), files={name: f"{name}\n" for name in names})
    builder.move("docs/tést ü.txt", "docs/renamed é.txt")
    builder.commit("Rename one", when=inside(10))

    renamed, added = collect(open_local(builder, cache))

    assert sorted(f.path for f in added.files) == sorted(names)
    assert all(f.additions == 1 and f.status == FileStatus.added for f in added.files)
    assert [(f.path, f.old_path, f.status) for f in renamed.files] == [
        ("docs/renamed é.txt", "docs/tést ü.txt", FileStatus.renamed)
    ]
    assert renamed.encoding_issues == [] and added.encoding_issues == []


# --------------------------------------------------------------------------- messages and encodings


def test_message_is_read_and_parsed_into_the_commit(builder: RepoBuilder, cache: Path) -> None:
    message = (
        "[Bugfix] Fix the cache (#123)\n\nThe cache key ignored the dtype.\nNote: not a trailer here.\n\n"
        "Signed-off-by: Ada <ada@example.invalid>\nCo-authored-by: Bob\n  Builder <bob@example.invalid>\n\n\n"
    )
    builder.commit(message, when=inside(9), author="Ada Lovelace", email="ada@example.invalid")

    commit = collect(open_local(builder, cache))[0]

    assert commit.subject == "[Bugfix] Fix the cache (#123)"
    assert (commit.title, commit.pr_number) == ("[Bugfix] Fix the cache", 123)
    assert commit.headline_lines == [
        "[Bugfix] Fix the cache (#123)",
        "The cache key ignored the dtype.",
        "Note: not a trailer here.",
    ]
    assert commit.body.startswith("The cache key ignored the dtype.\nNote: not a trailer here.\n\nSigned-off-by")
    assert commit.body.endswith("Builder <bob@example.invalid>")
    assert [(t.key, t.value) for t in commit.trailers] == [
        ("Signed-off-by", "Ada <ada@example.invalid>"),
        ("Co-authored-by", "Bob Builder <bob@example.invalid>"),
    ]
    assert (commit.author_name, commit.author_email, commit.committer_name) == (
        "Ada Lovelace",
        "ada@example.invalid",
        "GitHub",
    )


def test_non_utf8_message_and_author_are_replaced_and_reported(builder: RepoBuilder, cache: Path) -> None:
    sha = builder.commit(b"Fix caf\xe9 parser", author=b"Jos\xe9", when=inside(9))

    commit = collect(open_local(builder, cache))[0]

    assert commit.sha == sha
    assert commit.subject == "Fix caf\ufffd parser"
    assert commit.author_name == "Jos\ufffd"
    assert commit.encoding_issues == ["author", "message"]


def test_declared_message_encoding_is_reencoded_by_git(builder: RepoBuilder, cache: Path) -> None:
    builder.git("config", "i18n.commitEncoding", "ISO-8859-1")
    builder.git(
        "commit",
        "-q",
        "--allow-empty",
        "-F",
        "-",
        input=b"Fix caf\xe9 parser",
        env={"GIT_COMMITTER_DATE": inside(9).isoformat()},
    )

    commit = collect(open_local(builder, cache))[0]

    assert commit.subject == "Fix café parser"
    assert commit.encoding_issues == []


def test_non_utf8_path_and_patch_are_replaced_and_reported(builder: RepoBuilder, cache: Path) -> None:
    builder.commit(
        "Latin-1 everywhere",
        when=inside(9),
        files={os.fsdecode(b"caf\xe9.txt"): b"ok\n", "legacy.c": b"/* caf\xe9 */\n"},
    )

    commit = collect(open_local(builder, cache))[0]
    files = files_by_path(commit)

    assert files["legacy.c"].patch == "@@ -0,0 +1 @@\n+/* caf\ufffd */\n"
    assert files["caf\ufffd.txt"].additions == 1
    assert sorted(commit.encoding_issues) == ["patch:legacy.c", "path:caf\ufffd.txt"]


def test_missing_blobs_are_listed_and_the_rest_still_read(builder: RepoBuilder, cache: Path) -> None:
    big = builder.commit(
        "Add a diagram",
        when=inside(9),
        files={"docs/diagram.png": b"\x89PNG" + bytes(range(256)) * 40, "docs/a.md": "a\n"},
    )
    later = builder.commit("Later work", when=inside(10), files={"docs/a.md": "a\nb\n"})
    blob = builder.git("rev-parse", f"{big}:docs/diagram.png")
    (builder.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # as a partial clone lacks it

    commits = collect(open_local(builder, cache))

    assert [c.sha for c in commits] == [later, big]
    files = files_by_path(commits[1])
    assert files["docs/diagram.png"].content_missing
    assert files["docs/diagram.png"].status == FileStatus.added
    assert files["docs/a.md"].patch == "@@ -0,0 +1 @@\n+a\n" and not files["docs/a.md"].content_missing
    assert files_by_path(commits[0])["docs/a.md"].additions == 1


# --------------------------------------------------------------------------- opening repositories


def test_a_url_is_mirrored_into_the_cache_and_fetched_incrementally(builder: RepoBuilder, cache: Path) -> None:
    first = builder.commit("First of the day", when=inside(9))
    url = builder.path.as_uri()

    mirror = open_repository(url, cache_dir=cache)

    assert mirror.git_dir.parent == cache / "repos"
    assert (mirror.branch, mirror.remote_url) == ("main", url)
    assert [c.sha for c in collect(mirror)] == [first]

    second = builder.commit("Second of the day", when=inside(15))
    stale = open_repository(url, cache_dir=cache, fetch=False)
    assert [c.sha for c in collect(stale)] == [first]
    fresh = open_repository(url, cache_dir=cache)
    assert fresh.git_dir == mirror.git_dir
    assert [c.sha for c in collect(fresh)] == [second, first]


def test_default_branch_is_detected_for_paths_and_mirrors(tmp_path: Path, cache: Path) -> None:
    upstream = RepoBuilder(tmp_path / "upstream", branch="trunk")
    sha = upstream.commit("On trunk", when=inside(9))

    local = open_repository(str(upstream.path), cache_dir=cache)
    mirror = open_repository(upstream.path.as_uri(), cache_dir=cache)

    assert (local.branch, mirror.branch) == ("trunk", "trunk")
    assert [c.sha for c in collect(mirror)] == [sha]


def test_a_clone_whose_path_is_no_utf8_is_read(tmp_path: Path, cache: Path) -> None:
    """A directory name's byte 0xff (a Latin-1 file system, an old archive) is kept as is, not read as U+FFFD."""
    upstream = RepoBuilder(tmp_path / "caf\udcff", branch="trunk")
    sha = upstream.commit("In a Latin-1 directory", when=inside(9))

    local = open_repository(str(upstream.path), cache_dir=cache)

    assert local.branch == "trunk"
    assert [c.sha for c in collect(local)] == [sha]


def test_a_clone_whose_path_is_no_utf8_and_names_no_repository_is_one_line(tmp_path: Path) -> None:
    """The run's record in the store quotes the path; its undecodable byte must not make that record fail."""
    builder = RepoBuilder(tmp_path / "caf\udcff", branch="trunk")
    builder.commit("In a Latin-1 directory", when=inside(9))

    result = CliRunner().invoke(main, ["report", str(builder.path), "--date", "2026-02-09"])

    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "cannot tell owner/repo" in result.stderr, result.stderr


def test_a_mirror_follows_the_remote_default_branch(tmp_path: Path, cache: Path) -> None:
    upstream = RepoBuilder(tmp_path / "upstream", branch="master")
    upstream.commit("On master", when=inside(9))
    url = upstream.path.as_uri()
    assert open_repository(url, cache_dir=cache).branch == "master"

    upstream.git("branch", "-m", "master", "main")

    assert open_repository(url, cache_dir=cache).branch == "main"


def test_a_local_clone_reads_origin_head_not_the_checked_out_branch(tmp_path: Path, cache: Path) -> None:
    upstream = RepoBuilder(tmp_path / "upstream", branch="trunk")
    upstream.commit("On trunk", when=inside(9))
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(upstream.path), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", "-b", "my-feature"], cwd=clone, check=True)

    repo = open_repository(str(clone), cache_dir=cache)

    assert repo.branch == "trunk"
    assert repo.remote_url == str(upstream.path)


def test_a_local_repository_is_read_in_place_and_left_unchanged(builder: RepoBuilder, cache: Path) -> None:
    builder.commit("Today", when=inside(9), files={"x.txt": "x\n"})

    def snapshot() -> dict[str, int]:
        return {str(p): p.stat().st_mtime_ns for p in (builder.path / ".git").rglob("*")}

    before = snapshot()
    repo = open_local(builder, cache)
    collect(repo)

    assert repo.git_dir == (builder.path / ".git").resolve()
    assert snapshot() == before
    assert not cache.exists()


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("https://github.com/vllm-project/vllm.git", "vllm-project/vllm"),
        ("https://github.com/vllm-project/vllm", "vllm-project/vllm"),
        ("https://user:token@github.com/vllm-project/vllm/", "vllm-project/vllm"),
        ("git@github.com:vllm-project/vllm.git", "vllm-project/vllm"),
        ("ssh://git@github.com:22/vllm-project/vllm.git", "vllm-project/vllm"),
        ("https://gitlab.com/group/sub/project.git", "sub/project"),
        ("file:///srv/git/owner/repo.git", "owner/repo"),
        ("https://example.com/lonely.git", None),
        ("/home/me/src/vllm", None),
    ],
)
def test_repo_name_is_inferred_from_clone_urls(text: str, name: str | None) -> None:
    assert infer_repo_name(text) == name


# --------------------------------------------------------------------------- errors


def assert_one_line(error: pytest.ExceptionInfo[SourceError], *needles: str) -> None:
    message = str(error.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message


def _shallow_clone(builder: RepoBuilder, tmp_path: Path, depth: int) -> Path:
    """A clone of ``builder`` that holds only its last ``depth`` commits, as CI checks out (depth 1 by default)."""
    clone = tmp_path / f"shallow-{depth}"
    subprocess.run(
        ["git", "clone", "--quiet", f"--depth={depth}", builder.path.as_uri(), str(clone)],
        check=True,
        capture_output=True,
    )
    return clone


@pytest.mark.parametrize("depth", [1, 2])
def test_a_shallow_clone_cut_inside_the_day_is_a_source_error_not_a_shorter_day(
    builder: RepoBuilder, tmp_path: Path, cache: Path, depth: int
) -> None:
    """Read as it is, the day would lose its commits before the cut and show the boundary adding every file."""
    for hour in (9, 10, 11):
        builder.commit(f"Change {hour}", when=inside(hour), files={f"app/m{hour}.py": f"x = {hour}\n"})
    repo = open_repository(str(_shallow_clone(builder, tmp_path, depth)), cache_dir=cache)
    with pytest.raises(SourceError) as error:
        collect(repo)
    assert_one_line(error, "shallow", "--unshallow")


def test_a_shallow_clone_cut_before_the_day_reads_the_day_whole(
    builder: RepoBuilder, tmp_path: Path, cache: Path
) -> None:
    builder.commit("Before", when=inside(9) - timedelta(days=3), files={"app/before.py": "x = 0\n"})
    for hour in (9, 10):
        builder.commit(f"Change {hour}", when=inside(hour), files={f"app/m{hour}.py": f"x = {hour}\n"})
    repo = open_repository(str(_shallow_clone(builder, tmp_path, 3)), cache_dir=cache)
    assert [c.subject for c in collect(repo)] == ["Change 10", "Change 9"]


def test_a_missing_path_is_a_source_error(tmp_path: Path, cache: Path) -> None:
    with pytest.raises(SourceError) as error:
        open_repository(str(tmp_path / "nowhere"), cache_dir=cache)
    assert_one_line(error, "does not exist", "nowhere")


def test_a_directory_that_is_no_repository_is_a_source_error(tmp_path: Path, cache: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(SourceError) as error:
        open_repository(str(plain), cache_dir=cache)
    assert_one_line(error, "not a git repository", str(plain))


def test_an_unknown_branch_is_a_source_error(builder: RepoBuilder, cache: Path) -> None:
    with pytest.raises(SourceError) as error:
        open_local(builder, cache, branch="no-such-branch")
    assert_one_line(error, "no-such-branch", str(builder.path))


def test_an_unreachable_url_is_one_line_without_credentials(cache: Path) -> None:
    url = "https://alice:s3cret-token@127.0.0.1:9/owner/repo.git"
    with pytest.raises(SourceError) as error:
        open_repository(url, cache_dir=cache)
    assert_one_line(error, "cannot clone https://127.0.0.1:9/owner/repo.git: fatal:")
    assert "s3cret" not in str(error.value) and "alice" not in str(error.value)
    assert not any((cache / "repos").iterdir())


def test_a_url_to_no_repository_is_a_source_error(tmp_path: Path, cache: Path) -> None:
    with pytest.raises(SourceError) as error:
        open_repository((tmp_path / "missing.git").as_uri(), cache_dir=cache)
    assert_one_line(error, "cannot clone file://", "missing.git' does not appear to be a git repository")


# --------------------------------------------------------------------------- the real vLLM history


@pytest.mark.vllm
def test_vllm_day_matches_the_reference_report(tmp_path: Path) -> None:
    location = os.environ.get("REPODAILY_VLLM_REPO")
    if not location:
        pytest.skip("REPODAILY_VLLM_REPO is not set")
    repo = open_repository(location, cache_dir=tmp_path, branch="main")

    commits = collect(repo)

    assert len(commits) == 22
    assert commits[0].sha.startswith("d4f123cc48c3")
    assert commits[-1].sha.startswith("179ae7da8f48")
    assert all(DAY_START <= c.committed_at <= DAY_END for c in commits)


# --------------------------------------------------------------------------- tags of the day


def test_the_tags_of_the_day_are_its_releases_when_no_platform_says_more(tmp_path: Path) -> None:
    builder = RepoBuilder(tmp_path / "app")
    tz = ZoneInfo("Asia/Shanghai")
    builder.commit("Initial import", when=datetime(2026, 3, 1, 9, tzinfo=tz), files={"app.py": "A = 1\n"})
    builder.git("tag", "v0.1.0")  # lightweight, dated by its commit: the day before
    builder.commit("Fix the loader", when=datetime(2026, 3, 2, 10, tzinfo=tz), files={"app.py": "A = 2\n"})
    tagged = {"GIT_COMMITTER_DATE": datetime(2026, 3, 2, 18, tzinfo=tz).isoformat()}
    builder.git("tag", "-a", "v0.2.0", "-m", "Release 0.2.0", env=tagged)  # annotated, dated by its tagger
    builder.git("tag", "-a", "v0.2.1-rc", "-m", "Next", env={"GIT_COMMITTER_DATE": "2026-03-03T09:00:00+08:00"})
    out = tmp_path / "out"
    args = ["report", str(builder.path), "--name", "acme/app", "--date", "2026-03-02", "--lang", "en"]
    result = CliRunner().invoke(main, [*args, "--output", str(out), "--format", "md", "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads((out / "2026/acme/app/2026-03-02.json").read_text(encoding="utf-8"))
    assert [(r["tag"], r["url"]) for r in report["releases"]] == [
        ("v0.2.0", "https://github.com/acme/app/releases/tag/v0.2.0")
    ]
    markdown = (out / "2026/acme/app/2026-03-02.md").read_text(encoding="utf-8")
    assert "[v0.2.0](https://github.com/acme/app/releases/tag/v0.2.0)" in markdown


# --------------------------------------------------------------------------- git's stderr


_FLOOD = "!f() { echo 'fatal: the remote hung up' >&2; head -c 300000000 /dev/zero | tr '\\0' r >&2; exit 1; }; f"
# Run in a process of its own, so its peak memory is its own: VmHWM is the peak of this program's memory
# (getrusage's maxrss would start at the peak of the test runner that forked it).
_FLOODED = """
import re, sys
from repodaily.sources.git.process import run_git
result = run_git(["-c", "alias.flood=" + sys.argv[1], "flood"])
peak_kib = int(re.search(r"VmHWM:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1))
print(result.returncode, len(result.stderr), peak_kib // 1024)
print(result.stderr[:40])
"""


def test_git_that_writes_without_end_to_its_stderr_holds_a_bounded_head_of_it(tmp_path: Path) -> None:
    """A remote's progress messages keep a clone alive and git relays each: the run keeps the first, not all."""
    ran = subprocess.run(
        [sys.executable, "-c", _FLOODED, _FLOOD], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=True
    )
    (code, kept, peak_mib), first = ran.stdout.splitlines()[0].split(), ran.stdout.splitlines()[1]
    assert (code, first) == ("1", repr(b"fatal: the remote hung up\nrrrrrrrrrrrrrr"))
    assert int(kept) <= 64 * 1024
    assert int(peak_mib) < 150, f"reading 300 MB of git's stderr took {peak_mib} MiB"
