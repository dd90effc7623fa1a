"""The ``github`` source against a fake GitHub that answers from a real repository (tests/github_source_fake.py).

The strongest check: the same real repository read by the git source and, through
GitHub's REST shapes made from git's own output, by the github source gives the
same commits, field by field, day by day — merges with side branches, renames,
deletions, a binary file, a commit of more than 300 files, a listing of more than
one page, patches cut at the same cap.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner, Result
from github_source_fake import MAX_FILES, GitHubSourceFake

from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.errors import SourceError
from repodaily.models import Commit, DailyReport, FileStatus
from repodaily.plugins import registry
from repodaily.sources.base import Source, SourceContext, Window

TOKEN = "ghp_S0urc3R3ad3rT0k3nZx9Cv8Bn7Mm6Lk5Jh4"
REPOSITORY = "acme/widgets"
SHANGHAI = ZoneInfo("Asia/Shanghai")
#: The source's entry point (pyproject.toml), registered here when the installed metadata predates it.
GITHUB_SOURCE = "github-source"
BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))


@pytest.fixture(autouse=True)
def _github_source(monkeypatch: pytest.MonkeyPatch) -> None:
    plugins = registry()
    if "github" not in plugins.names("source"):
        plugins.add_plugin(importlib.import_module("repodaily.sources.github.plugin"), GITHUB_SOURCE)
    for name in ("GITHUB_TOKEN", "GH_TOKEN", "TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)


def at(day: int, hour: int, minute: int = 0) -> datetime:
    """A moment of February 2026 in Shanghai, stored as UTC the way many pushes are."""
    return datetime(2026, 2, day, hour, minute, tzinfo=SHANGHAI).astimezone(UTC)


def window(day: int) -> Window:
    return datetime(2026, 2, day, tzinfo=SHANGHAI), datetime(2026, 2, day, 23, 59, 59, tzinfo=SHANGHAI)


@pytest.fixture
def builder(tmp_path: Path) -> RepoBuilder:
    repo = RepoBuilder(tmp_path / "widgets")
    repo.commit(
        "Initial import",
        when=at(1, 10),
        files={"README.md": "# widgets\n", "src/app.py": "".join(f"line {i}\n" for i in range(40))},
    )
    return repo


@pytest.fixture
def fake(builder: RepoBuilder) -> Iterator[GitHubSourceFake]:
    with GitHubSourceFake(TOKEN, builder.path, REPOSITORY) as server:
        yield server


def _sources(fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path, max_patch_bytes: int) -> list[Source]:
    """The git source on the clone, and the github source on the fake serving it; both through the registry."""
    context = SourceContext(cache_dir=tmp_path / "cache", max_patch_bytes=max_patch_bytes)
    plugins = registry()
    git = plugins.create("source", "git", {"path": str(builder.path)}, "test", context=context)
    table = {"repository": REPOSITORY, "api_url": fake.api_url}
    github = plugins.create("source", "github", table, "test", context=context)
    return [git, github]


def _read(source: Source, windows: list[Window]) -> list[list[Commit]]:
    opened = source.open()
    assert opened.branch == "main"
    return [commits for _, commits in source.collect_days(windows)]


def _history(builder: RepoBuilder) -> dict[str, str]:
    """Three days worth comparing, between older and newer commits; the SHAs the checks name."""
    shas: dict[str, str] = {}
    # February 8: an edit cut by the patch cap, a binary file, a rename with an edit.
    builder.commit(
        "[Core] Rework the app (#11)\n\nLonger lines.\n\nSigned-off-by: Ada <ada@example.invalid>",
        when=at(8, 9),
        files={"src/app.py": "".join(f"line {i} is now longer than it was\n" for i in range(40))},
    )
    builder.commit("Add the logo", when=at(8, 10), files={"assets/logo.png": BINARY})
    builder.move("src/app.py", "src/main.py")
    builder.commit("Rename app to main", when=at(8, 11), author="Grace Hopper", files={"src/extra.py": "x = 1\n"})
    # February 9: a side branch whose commits fall inside the day, merged into main; a deletion; 320 files.
    builder.git("checkout", "-q", "-b", "topic")
    shas["side 1"] = builder.commit("Side work one", when=at(9, 9), files={"docs/guide.md": "# Guide\n"})
    shas["side 2"] = builder.commit("Side work two", when=at(9, 10), files={"docs/guide.md": "# Guide\n\nMore.\n"})
    builder.git("checkout", "-q", "main")
    builder.commit("Fix the README (#12)", when=at(9, 9, 30), files={"README.md": "# widgets\n\nFixed.\n"})
    shas["merge"] = builder.merge("topic", "Merge pull request #13 from octo/topic", when=at(9, 11))
    builder.remove("src/extra.py")
    builder.commit("Remove extra", when=at(9, 12))
    shas["wide"] = builder.commit(
        "Generate the tables", when=at(9, 13), files={f"gen/t{i:03}.txt": f"row {i}\n" for i in range(320)}
    )
    # February 10: more commits than one page of the listing holds.
    for i in range(105):
        builder.commit(f"Bump the counter to {i}", when=at(10, 8) + timedelta(minutes=i), files={"COUNTER": f"{i}\n"})
    # After the span: the walk from the tip passes through it.
    builder.commit("Later work", when=at(12, 9), files={"README.md": "# widgets\n\nLater.\n"})
    return shas


def test_a_span_read_through_github_is_what_git_reads(
    fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path
) -> None:
    shas = _history(builder)
    windows = [window(8), window(9), window(10)]
    git, github = _sources(fake, builder, tmp_path, max_patch_bytes=300)

    expected, read = _read(git, windows), _read(github, windows)

    assert [len(day) for day in expected] == [3, 4, 105]
    assert [[c.model_dump() for c in day] for day in read] == [[c.model_dump() for c in day] for day in expected]
    # What the comparison covers, so that it can fail where it matters.
    day8, day9 = read[0], read[1]
    assert {f.status for c in day8 + day9 for f in c.files} == {
        FileStatus.added,
        FileStatus.modified,
        FileStatus.deleted,
        FileStatus.renamed,
    }
    assert any(f.binary for c in day8 for f in c.files)
    assert any(f.patch_truncated and f.patch.startswith("@@") for c in day8 for f in c.files)
    listing = builder.git("rev-list", "--since", window(9)[0].isoformat(), "main").split()
    assert shas["side 1"] in listing and shas["side 2"] in listing  # GitHub lists them; the walk leaves them out
    assert {shas["side 1"], shas["side 2"]}.isdisjoint(c.sha for c in day9)
    merge = next(c for c in day9 if c.sha == shas["merge"])
    assert [f.path for f in merge.files] == ["docs/guide.md"] and len(merge.parents) == 2
    wide = next(c for c in day9 if c.sha == shas["wide"])
    assert len(wide.files) == 320 and not wide.files_incomplete
    assert len(fake.asked(f"/commits/{shas['wide']}")) == 2  # 300 files a page
    listing_pages = [r for r in fake.requests if r.path.partition("?")[0].endswith("/commits")]
    assert len(listing_pages) == 2  # more than 100 commits since two days before the span
    assert "until" not in listing_pages[0].path  # the chain from the tip passes through the later commits
    # What the README says a span costs: the repository, the tip, the listing's pages, a request per commit
    # and one per 300 files past the first 300.
    assert len(fake.requests) == 1 + 1 + 2 + (3 + 4 + 105) + 1


def test_a_tree_is_listed_as_git_lists_it(fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path) -> None:
    head = builder.commit("Go deeper", when=at(9, 9), files={"src/deep/er/mod.py": "y = 2\n"})
    builder.git("update-index", "--add", "--cacheinfo", f"160000,{head},vendor/self")  # a submodule's entry
    stamp = f"{int(at(9, 10).timestamp())} +0000".encode()
    sha = builder.write_commit(b"Ada <ada@example.invalid> " + stamp, b"GitHub <gh@example.invalid> " + stamp, b"Pin\n")
    git, github = _sources(fake, builder, tmp_path, max_patch_bytes=1000)

    paths = github.tree_paths(sha)  # type: ignore[attr-defined]

    assert paths == git.tree_paths(sha)  # type: ignore[attr-defined]
    assert {"src/deep/er/mod.py", "vendor/self"} <= set(paths) and "src/deep" not in paths


def _run(tmp_path: Path, fake: GitHubSourceFake, *keys: str) -> Result:
    """``repodaily run`` of February 9 over the repository on the fake, in English Markdown and JSON."""
    config = tmp_path / "repodaily.toml"
    lines = [
        'language = "en"',
        f'cache_dir = "{tmp_path / "cache"}"',
        '[analyzer]\nname = "heuristic"',
        f'[output]\ndir = "{tmp_path / "out"}"\nformats = ["md", "json"]',
        f'[[repos]]\nsource = "github"\nrepository = "{REPOSITORY}"\napi_url = "{fake.api_url}"',
        *keys,
    ]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return CliRunner().invoke(main, ["run", "--config", str(config), "--date", "2026-02-09"])


def test_a_commit_past_githubs_cap_is_marked_and_the_report_says_so(
    fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path
) -> None:
    builder.commit(
        "Vendor everything", when=at(9, 10), files={f"vendor/f{i:04}.txt": f"{i}\n" for i in range(MAX_FILES + 1)}
    )
    result = _run(tmp_path, fake)

    assert result.exit_code == 0, result.output
    (markdown,) = (tmp_path / "out").rglob("*.md")
    (data,) = (tmp_path / "out").rglob("*.json")
    report = DailyReport.model_validate_json(data.read_text(encoding="utf-8"))
    (commit,) = report.commits
    assert commit.files_incomplete and report.stats.files_changed == MAX_FILES
    assert "The source listed only some of this commit's files" in markdown.read_text(encoding="utf-8")
    assert all(request.headers.get("authorization") == f"Bearer {TOKEN}" for request in fake.requests)


def test_a_patch_github_leaves_out_keeps_its_counts_and_is_marked_cut(
    fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path
) -> None:
    builder.commit("Grow the data", when=at(9, 10), files={"data.csv": "".join(f"{i},{i * i}\n" for i in range(500))})
    fake.patch_limit = 1000
    _, github = _sources(fake, builder, tmp_path, max_patch_bytes=1_000_000)

    [[commit]] = _read(github, [window(9)])

    (change,) = commit.files
    assert (change.additions, change.deletions, change.patch) == (500, 0, "")
    assert change.patch_truncated and not change.binary


def test_a_short_secondary_rate_limit_is_waited_out(
    fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path
) -> None:
    builder.commit("One more", when=at(9, 10), files={"README.md": "more\n"})
    _, github = _sources(fake, builder, tmp_path, max_patch_bytes=1000)
    github.open()
    fake.refuse_next("secondary", 0)

    [[commit]] = [commits for _, commits in github.collect_days([window(9)])]

    assert commit.subject == "One more"
    assert fake.requests[-4].path.startswith("/repos/acme/widgets/branches/")  # refused, then asked again


def _error_of(fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path, **table: Any) -> str:
    context = SourceContext(cache_dir=tmp_path / "cache", max_patch_bytes=1000)
    settings = {"repository": REPOSITORY, "api_url": fake.api_url, "max_wait_s": 1, **table}
    source = registry().create("source", "github", settings, "test", context=context)
    with pytest.raises(SourceError) as caught:
        source.open()
        list(source.collect_days([window(9)]))
    message = str(caught.value)
    assert "\n" not in message and TOKEN not in message
    return message


@pytest.mark.parametrize("listing", ["commits", "files"])
def test_pages_whose_next_link_leads_back_fail_the_repository_in_one_line(
    fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path, listing: str
) -> None:
    if listing == "commits":
        for i in range(105):
            builder.commit(f"Bump {i}", when=at(9, 8) + timedelta(minutes=i), files={"COUNTER": f"{i}\n"})
    else:
        builder.commit("Generate", when=at(9, 8), files={f"gen/t{i:03}.txt": f"{i}\n" for i in range(320)})
    fake.loop_pages = True

    message = _error_of(fake, builder, tmp_path)

    assert "the next page's link leads back to a page already read" in message
    assert len(fake.requests) < 10


def test_a_repository_github_does_not_have_is_one_line(
    fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path
) -> None:
    message = _error_of(fake, builder, tmp_path, repository="acme/nothing")

    assert message == (
        "github source acme/nothing: GET /repos/acme/nothing: HTTP 404 (not found, or the token cannot see it): "
        "Not Found"
    )


def test_an_unknown_branch_is_one_line(fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path) -> None:
    message = _error_of(fake, builder, tmp_path, branch="nope")

    assert "GET /repos/acme/widgets/branches/nope: HTTP 404" in message and "Branch not found" in message


def test_an_exhausted_rate_limit_is_one_line_saying_when(
    fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path
) -> None:
    fake.refuse_next("primary", 3600)

    message = _error_of(fake, builder, tmp_path)

    assert "GitHub refuses requests for" in message and "primary rate limit" in message
    assert "max_wait_s = 1 s" in message


def test_a_wait_within_max_wait_s_that_the_earlier_waits_use_up_says_so(
    fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path
) -> None:
    fake.fail_next(502, times=3)  # asked again after 1 s, then 4 s: 5 s in all

    message = _error_of(fake, builder, tmp_path, max_wait_s=4)

    assert "GitHub refuses requests for 4 s (HTTP 502) after 1 s of waits, more than max_wait_s = 4 s" in message


def test_a_refused_token_fails_the_report_with_exit_code_2_in_one_line(
    fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN")
    monkeypatch.setenv("MY_TOKEN", "ghp_N0tTh3R1ghtT0k3nAtAllQw3Er4Ty5Ui6")
    result = _run(tmp_path, fake, 'token_env = "MY_TOKEN"')

    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line == (
        "repodaily: error: github source acme/widgets: GET /repos/acme/widgets: HTTP 401 (the token was refused): "
        "Bad credentials"
    )
    assert fake.requests[0].headers["authorization"] == "Bearer ghp_N0tTh3R1ghtT0k3nAtAllQw3Er4Ty5Ui6"


def test_a_token_the_server_echoes_is_masked_in_the_error(
    fake: GitHubSourceFake, builder: RepoBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "ghp_N0tTh3R1ghtT0k3nAtAllQw3Er4Ty5Ui6"
    monkeypatch.setenv("MY_TOKEN", wrong)
    fake.echo_credentials = True

    message = _error_of(fake, builder, tmp_path, token_env="MY_TOKEN")  # the run's redactor knows nothing of it

    assert "HTTP 401 (the token was refused): Bad credentials (Bearer " in message
    assert wrong not in message and wrong[4:20] not in message


def test_doctor_says_the_repository_is_readable_and_what_is_left_of_the_hour(
    fake: GitHubSourceFake, tmp_path: Path
) -> None:
    config = tmp_path / "repodaily.toml"
    config.write_text(
        f'[[repos]]\nsource = "github"\nrepository = "{REPOSITORY}"\napi_url = "{fake.api_url}"\n'
        f'[[repos]]\nsource = "github"\nrepository = "acme/nothing"\napi_url = "{fake.api_url}"\n',
        encoding="utf-8",
    )

    result = CliRunner().invoke(main, ["doctor", "--config", str(config)], terminal_width=300)

    rows = [line for line in result.output.splitlines() if line.startswith("│ github source")]
    assert len(rows) == 2, result.output
    assert "main" in rows[0] and "4999 of 5000 left" in rows[0] and "ok" in rows[0]
    assert "NO" in rows[1] and "FAILED" in rows[1]
    assert "github source acme/nothing: GET /repos/acme/nothing: HTTP 404 (not found, or" in result.output
    assert TOKEN not in result.output


def test_the_command_line_names_a_github_repository_by_name_or_url() -> None:
    spec = registry().get("source", "github")
    assert spec.locate is not None
    assert spec.locate("acme/widgets") == {"repository": "acme/widgets"}
    assert spec.locate("https://github.com/acme/widgets.git") == {"repository": "acme/widgets"}
