"""A third party's plugin package, built and installed into this environment, runs a whole report.

The package (``tests/example_plugins``) has one plugin of each kind — a source
serving a fixed day, an analyzer, a renderer and a publisher writing to a
directory — written against the public protocols only. It is built and
installed with pip, found through its entry points like the built-ins, and
driven by ``repodaily run`` in a fresh process: nothing of repodaily changes.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parent / "example_plugins"
DISTRIBUTION = "repodaily-example-plugins"
DAY = "2026-03-02"


@pytest.fixture(scope="module")
def example_plugins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The example package installed into the running interpreter's environment, and removed after."""
    source = tmp_path_factory.mktemp("example") / "example_plugins"
    shutil.copytree(EXAMPLE, source)  # the build writes beside the sources; keep the checkout clean
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "install", "--no-deps", "--no-build-isolation", str(source)], check=True, timeout=300)
    try:
        yield
    finally:
        subprocess.run([*pip, "uninstall", "--yes", DISTRIBUTION], check=True, timeout=120)


def _config(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "repodaily.toml"
    path.write_text(
        f"""
cache_dir = "{tmp_path / "cache"}"
language = "en"
timezone = "UTC"

[analyzer]
name = "by-size"
fallback = "by-size"

[by-size]
high_from_lines = 100

[output]
formats = ["txt", "md"]

[[publish]]
type = "drop"
dir = "{tmp_path / "drop"}"

[[repos]]
source = "fixed-day"
day = "{DAY}"
commits = 3
{extra}""",
        encoding="utf-8",
    )
    return path


def _repodaily(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "repodaily", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_without_the_package_its_plugins_are_unknown(tmp_path: Path) -> None:
    # The control: the names above come from the installed package, not from repodaily.
    if (
        subprocess.run(
            [sys.executable, "-m", "pip", "show", "--quiet", DISTRIBUTION], capture_output=True, check=False
        ).returncode
        == 0
    ):
        pytest.skip("the example package is installed in this environment")
    result = _repodaily("run", "--config", str(_config(tmp_path)), "--date", DAY)
    assert result.returncode == 2 and "unknown format 'txt'" in result.stderr


def test_a_run_goes_through_a_plugin_of_each_kind(example_plugins: None, tmp_path: Path) -> None:
    result = _repodaily("run", "--config", str(_config(tmp_path)), "--date", DAY)
    assert result.returncode == 0, result.stderr
    drop = tmp_path / "drop"
    txt, md = drop / f"example-fixed-{DAY}.txt", drop / f"example-fixed-{DAY}.md"
    assert result.stdout.split() == [str(txt), str(md)]  # the deliveries, as the CLI reports them
    lines = txt.read_text(encoding="utf-8").splitlines()
    # The source's three commits, 10, 100 and 1000 lines; the analyzer's threshold is 100.
    assert lines[0] == f"example/fixed {DAY}: 3 commits, 2 high"
    assert [line.split()[1] for line in lines[1:]] == ["low", "high", "high"]  # newest first
    assert all("by-size: Change number" in line for line in lines[1:])
    report = md.read_text(encoding="utf-8")
    assert "1000 lines added" in report and "by-size/100" in report  # the analyzer's reason, by the built-in renderer


def test_a_plugins_settings_are_strict_and_errors_name_the_file_and_the_key(
    example_plugins: None, tmp_path: Path
) -> None:
    config = _config(tmp_path)
    config.write_text(config.read_text().replace("high_from_lines", "high_from_line"), encoding="utf-8")
    result = _repodaily("run", "--config", str(config), "--date", DAY)
    assert result.returncode == 2
    assert result.stderr.strip() == f"repodaily: error: {config}: by-size.high_from_line: unknown key"
    config = _config(tmp_path, extra="dya = 3\n")
    result = _repodaily("run", "--config", str(config), "--date", DAY)
    assert (result.returncode, result.stderr.strip()) == (2, f"repodaily: error: {config}: repos.0.dya: unknown key")
    assert not (tmp_path / "drop").exists()


def test_doctor_asks_the_plugins_for_their_health(example_plugins: None, tmp_path: Path) -> None:
    result = _repodaily("doctor", "--config", str(_config(tmp_path)))
    assert result.returncode == 0, result.stderr
    assert "publisher drop" in result.stdout and str(tmp_path / "drop") in result.stdout


def test_the_plugins_command_names_each_plugin_and_its_package(example_plugins: None) -> None:
    result = _repodaily("plugins")
    assert result.returncode == 0, result.stderr
    rows = {tuple(line.split("│")[1:3]) for line in result.stdout.splitlines() if line.startswith("│")}
    names = {(kind.strip(), name.strip()) for kind, name in rows}
    assert {("source", "fixed-day"), ("analyzer", "by-size"), ("renderer", "txt"), ("publisher", "drop")} <= names
    assert {("source", "git"), ("analyzer", "llm"), ("publisher", "stdout")} <= names
    assert "repodaily-example-plugins" in result.stdout
