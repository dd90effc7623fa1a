"""The heuristic on the conventions of a Ruby library (a gem).

Such a library keeps its public classes under ``lib/``, its minitest specs under
``test/``, its dependencies in a ``*.gemspec`` and a ``Gemfile``, a
``CHANGELOG.md`` with an ``## Unreleased`` section, and prose written in RDoc
markup (``README.rdoc``, a ``SPEC.rdoc`` that the code's comments mirror). Every
commit is made by git in a temporary repository and read by the git source, as a
report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_SPEC = """= Rack Specification

== Applications

A Rack application is a Ruby object (not a class) that
responds to +call+.
"""

_LINT = """# frozen_string_literal: true

module Acme
  class Lint
    ## A Rack application is a Ruby object (not a class) that
    ## responds to +call+.
    def initialize(app)
      @app = app
    end
  end
end
"""

_GEMFILE = """source "https://rubygems.org"

gemspec

group :doc do
  gem "rdoc"
end
"""

_GEMSPEC = """Gem::Specification.new do |s|
  s.name = "acme"
  s.required_ruby_version = ">= 2.4.0"
end
"""

_CHANGELOG = """# Changelog

## Unreleased

### Fixed

- Nothing yet.
"""


@pytest.fixture
def gem(tmp_path: Path) -> Repo:
    files = {
        "README.md": "# acme\n",
        "SPEC.rdoc": _SPEC,
        "lib/acme/lint.rb": _LINT,
        "Gemfile": _GEMFILE,
        "CHANGELOG.md": _CHANGELOG,
        "acme.gemspec": _GEMSPEC,
    }
    return Repo(tmp_path, files)


def test_a_sentence_corrected_in_an_rdoc_spec_and_its_comment_is_documentation(gem: Repo) -> None:
    files = {
        "SPEC.rdoc": _SPEC.replace(" (not a class)", ""),
        "lib/acme/lint.rb": _LINT.replace(" (not a class)", ""),
    }
    result = analyse(gem.change("Remove incorrect text in SPEC", files))
    assert result.type == ChangeType.docs
    assert result.importance == Importance.low
    assert not result.flags.user_facing


_UTILS = """# frozen_string_literal: true

module Acme
  module Utils
    def status_code(status)
      if status.is_a?(Symbol)
        SYMBOL_TO_STATUS_CODE.fetch(status) do
          message = "Status code #{status.inspect} is deprecated"
          warn message, uplevel: 1
          fallback_code(status)
        end
      else
        status.to_i
      end
    end
  end
end
"""


def test_pointing_a_deprecation_warning_at_another_caller_is_low(gem: Repo) -> None:
    gem.change("Add status codes", {"lib/acme/utils.rb": _UTILS})
    utils = _UTILS.replace("uplevel: 1", "uplevel: 3")
    result = analyse(gem.change("Improve deprecation for `status_code` `uplevel`", {"lib/acme/utils.rb": utils}))
    assert result.importance == Importance.low
    assert result.flags.user_facing


_SENDFILE = """# frozen_string_literal: true

module Acme
  class Sendfile
    def call(env)
      type = env["HTTP_X_SENDFILE_TYPE"]
      case type
      when "x-sendfile"
        env["X-Sendfile"]
      else
        env["rack.errors"].puts "Unknown x-sendfile variation: '#{type}'."
      end
    end
  end
end
"""

_SECURITY_ENTRY = """## Unreleased

### Security

- [CVE-2025-27111](https://github.com/advisories/GHSA-8cgq-6mh2-7j6v) Possible log injection in `Acme::Sendfile`.

"""


def test_a_fix_of_log_injection_is_a_security_fix_not_a_logging_change(gem: Repo) -> None:
    gem.change("Add Sendfile", {"lib/acme/sendfile.rb": _SENDFILE})
    files = {
        "lib/acme/sendfile.rb": _SENDFILE.replace("'#{type}'.", "#{type.inspect}"),
        "CHANGELOG.md": _CHANGELOG.replace("## Unreleased\n\n", _SECURITY_ENTRY),
    }
    result = analyse(gem.change("Use `#inspect` to prevent log injection.", files))
    assert result.type == ChangeType.fix
    assert result.flags.security
    assert result.importance == Importance.high


def _version_module(line: str) -> str:
    """A gem's ``lib/acme/version.rb``, the module its gemspec reads the version from."""
    body = f"  {line}\n\n  def self.release\n    {line.split()[0]}\n  end\n"
    return f"# frozen_string_literal: true\n\nmodule Acme\n{body}end\n"


_RELEASED = """## Unreleased

## [3.1.22] - 2026-08-13

### Security

- [CVE-2026-26962](https://github.com/advisories/GHSA-rx22-g9mx-qrhv) Improper unfolding of folded multipart headers.

### Fixed

- Restore Ruby 2.4/2.5 compatibility.

"""


@pytest.mark.parametrize(
    ("before", "after"),
    [('RELEASE = "3.1.21"', 'RELEASE = "3.1.22"'), ('VERSION = "3.1.21".freeze', 'VERSION = "3.1.22".freeze')],
)
def test_a_patch_release_of_a_gem_that_ships_a_security_fix_is_a_release_chore(
    gem: Repo, before: str, after: str
) -> None:
    gem.change("Add the version module", {"lib/acme/version.rb": _version_module(before)})
    files = {
        "lib/acme/version.rb": _version_module(after),
        "CHANGELOG.md": _CHANGELOG.replace("## Unreleased\n\n", _RELEASED),
    }
    result = analyse(gem.change("Bump patch version.", files))
    assert result.type == ChangeType.chore
    assert result.importance == Importance.low
    assert not result.flags.security


_DOCS_WORKFLOW = """name: Documentation
on:
  push:
    branches: [main]
jobs:
  deploy:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Generate documentation
        run: |
          cd doc
          cp ../README.md .
"""


def test_fixing_the_links_to_the_security_and_upgrade_guides_fixes_no_weakness(gem: Repo) -> None:
    gem.change("Add documentation workflow", {".github/workflows/documentation.yaml": _DOCS_WORKFLOW})
    workflow = _DOCS_WORKFLOW + "          cp ../UPGRADE-GUIDE.md .\n          cp ../SECURITY.md .\n"
    result = analyse(
        gem.change("Fix security and upgrade guide links.", {".github/workflows/documentation.yaml": workflow})
    )
    assert not result.flags.security
    assert result.importance == Importance.low


def test_a_title_that_prevents_log_injection_names_a_security_fix(gem: Repo) -> None:
    gem.change("Add Sendfile", {"lib/acme/sendfile.rb": _SENDFILE})
    sendfile = _SENDFILE.replace("'#{type}'.", "#{type.inspect}")
    result = analyse(gem.change("Prevent log injection in Sendfile", {"lib/acme/sendfile.rb": sendfile}))
    assert result.flags.security


_FILES = """# frozen_string_literal: true

module Acme
  # Serves the files below a root directory.
  class Files
    def initialize(root)
      @root = root
    end
  end
end
"""

_NOT_A_WEAKNESS = """Document that Acme::Files follows symlinks

This is the default behavior for most webservers, so it should
not be surprising. It's also not a security issue.

However, we have had multiple security vulnerability reports
about this behavior. Documenting it should avoid similar reports.
"""


def test_documenting_a_behaviour_that_is_not_a_security_issue_is_no_security_change(gem: Repo) -> None:
    gem.change("Add Files", {"lib/acme/files.rb": _FILES})
    note = "  # Symbolic links below the root are followed, as most web servers do.\n"
    files = {"lib/acme/files.rb": _FILES.replace("  # Serves the files", note + "  # Serves the files")}
    result = analyse(gem.change(_NOT_A_WEAKNESS, files))
    assert result.type == ChangeType.docs
    assert not result.flags.security
    assert result.importance == Importance.low
