"""The heuristic on the conventions of a Rust library kept as a Cargo workspace of several crates.

Each crate has its own manifest and its own ``CHANGELOG.md`` with an ``# Unreleased``
section; the workspace releases its crates by setting their versions, and the crates
require each other by path and version. Every commit is made by git in a temporary
repository and read by the git source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_CORE = """[package]
name = "web-core"
version = "{version}" # remember to bump the version that web depends on
edition = "2021"

[dependencies]
bytes = "1.7"
"""
_WEB = """[package]
name = "web"
version = "{version}"
edition = "2021"

[dependencies]
web-core = {{ path = "../web-core", version = "{core}" }}
bytes = "1.7"
"""
_ENTRY = "- **breaking:** Removed the deprecated `Host` extractor ([#12])\n\n# 0.7.3\n\n- Older entry\n"
_CHANGELOG = "# Unreleased\n\n" + _ENTRY
_RELEASED = "# Unreleased\n\n- None.\n\n# {version}\n\n" + _ENTRY


def _files(core: str, web: str, changelog: str = _CHANGELOG) -> dict[str, str]:
    return {
        "web-core/Cargo.toml": _CORE.format(version=core),
        "web/Cargo.toml": _WEB.format(version=web, core=core),
        "web/CHANGELOG.md": changelog,
    }


@pytest.fixture
def workspace(tmp_path: Path) -> Repo:
    files = {**_files("0.5.0", "0.7.3"), "web/src/lib.rs": "pub fn serve() {}\n", "web-core/src/lib.rs": "\n"}
    return Repo(tmp_path, files)


# --------------------------------------------------------------------------- releases


@pytest.mark.parametrize(
    ("core", "web", "importance"), [("0.5.1", "0.7.4", Importance.low), ("0.6.0", "0.8.0", Importance.medium)]
)
def test_a_release_whose_version_lines_carry_a_comment_is_a_release_chore(
    workspace: Repo, core: str, web: str, importance: Importance
) -> None:
    # The title names the crate between the verb and the version, as no title pattern reads it: the diff decides.
    changelog = _RELEASED.format(version=web)
    analysis = analyse(workspace.change(f"Release web v{web}", _files(core, web, changelog)))
    assert (analysis.type, analysis.importance) == (ChangeType.chore, importance)
    assert not analysis.flags.breaking


# --------------------------------------------------------------------------- titles


_CONNECT = """pub trait Connected<T> {{
    fn connect_info(target: T) -> Self;
}}

impl Connected<Stream> for Addr {{
    fn connect_info(stream: Stream) -> Self {{
        stream.addr()
    }}
}}
{more}"""
_TAPPED = """
impl<F> Connected<Tapped<Stream, F>> for Addr {
    fn connect_info(stream: Tapped<Stream, F>) -> Self {
        stream.inner().addr()
    }
}

impl<F> Connected<&Tapped<Stream, F>> for Addr {
    fn connect_info(stream: &Tapped<Stream, F>) -> Self {
        stream.inner().addr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tapped() -> Tapped<Stream, fn(&mut Stream)> {
        Stream::bound().tap(|stream| stream.set_nodelay(true))
    }

    #[test]
    fn tapped_listener_gives_connect_info() {
        assert_eq!(Addr::connect_info(tapped()), Addr::LOCAL);
    }

    #[test]
    fn tapped_listener_keeps_the_peer() {
        let stream = tapped();
        let peer = stream.inner().peer();
        assert_eq!(Addr::connect_info(stream).peer(), peer);
    }

    #[test]
    fn untapped_listener_still_gives_connect_info() {
        assert_eq!(Addr::connect_info(Stream::bound()), Addr::LOCAL);
    }

    #[test]
    fn every_tapped_connection_gives_its_own_peer() {
        let listener = Listener::bind(Addr::LOCAL).tap_io(|stream| {
            stream.set_nodelay(true);
        });
        let first = listener.accept();
        let second = listener.accept();
        let peers = [first.inner().peer(), second.inner().peer()];
        assert_eq!(Addr::connect_info(first).peer(), peers[0]);
        assert_eq!(Addr::connect_info(second).peer(), peers[1]);
        assert_ne!(peers[0], peers[1]);
    }

    #[test]
    fn a_tapped_connection_borrowed_gives_connect_info() {
        let stream = tapped();
        let addr = Addr::connect_info(&stream);
        assert_eq!(addr, Addr::LOCAL);
        assert_eq!(addr.peer(), stream.inner().peer());
        drop(stream);
    }
}
"""


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("Make ConnectInfo work with tapped listeners (#3059)", ChangeType.fix),
        ("Make connect info work again on Windows", ChangeType.fix),
        ("Make connect info friendlier to work with", ChangeType.chore),
    ],
)
def test_a_title_making_a_thing_work_somewhere_is_a_fix(workspace: Repo, title: str, kind: ChangeType) -> None:
    workspace.change("Add connect info", {"web/src/connect.rs": _CONNECT.format(more="")})
    analysis = analyse(workspace.change(title, {"web/src/connect.rs": _CONNECT.format(more=_TAPPED)}))
    assert analysis.type == kind


_GENERICS = """pub fn ident_generics(generic: Option<Ident>) -> TokenStream {{
{body}}}
"""
_THEN = "    generic.is_some().then(|| quote! { <T> }).unwrap_or_default()\n"
_IF = "    if generic.is_some() {\n        quote! { <T> }\n    } else {\n        TokenStream::new()\n    }\n"


@pytest.mark.parametrize(
    ("title", "kind", "importance"),
    [
        ("Make clippy happy (#3350)", ChangeType.refactor, Importance.low),
        ("Make rust-analyzer happy about the generics macro", ChangeType.refactor, Importance.low),
        ("Appease clippy", ChangeType.refactor, Importance.low),
        ("Make CI happy", ChangeType.fix, Importance.medium),
    ],
)
def test_a_checker_made_happy_is_a_low_refactor(
    workspace: Repo, title: str, kind: ChangeType, importance: Importance
) -> None:
    workspace.change("Add generics", {"web/src/generics.rs": _GENERICS.format(body=_THEN)})
    analysis = analyse(workspace.change(title, {"web/src/generics.rs": _GENERICS.format(body=_IF)}))
    assert (analysis.type, analysis.importance) == (kind, importance)


# --------------------------------------------------------------------------- examples crates

_EXAMPLE = """use web::serve;

fn app() -> Router {{
    Router::new().route("/{{version}}/foo", get(handler))
}}

fn main() {{
    serve(app());
}}
{tests}"""
_EXAMPLE_TESTS = """
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_version_one() {
        assert_eq!(app().call("/v1/foo").status(), 200);
    }
}
"""


@pytest.mark.parametrize("title", ["[test] the versioning example (#3275)", "test(examples): cover versioning"])
def test_tests_added_to_an_example_crate_are_tests(workspace: Repo, title: str) -> None:
    manifest = '[package]\nname = "example-versioning"\nversion = "0.1.0"\npublish = false\n'
    workspace.change(
        "Add the example",
        {"examples/versioning/Cargo.toml": manifest, "examples/versioning/src/main.rs": _EXAMPLE.format(tests="")},
    )
    analysis = analyse(
        workspace.change(title, {"examples/versioning/src/main.rs": _EXAMPLE.format(tests=_EXAMPLE_TESTS)})
    )
    assert (analysis.type, analysis.importance) == (ChangeType.test, Importance.low)


# --------------------------------------------------------------------------- lint attributes

_PATH = """impl<T> Path<T> {{
{attribute}    pub fn into_inner(self) -> T {{
        self.0
    }}
}}
"""


@pytest.mark.parametrize(
    "attribute", ["    #[must_use]\n", '    #[must_use = "the inner value is moved out"]\n', "    #[warn(unused)]\n"]
)
def test_a_must_use_attribute_added_is_a_low_refactor(workspace: Repo, attribute: str) -> None:
    workspace.change("Add Path", {"web/src/path.rs": _PATH.format(attribute="")})
    analysis = analyse(
        workspace.change("axum: add suggested `must_use`", {"web/src/path.rs": _PATH.format(attribute=attribute)})
    )
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)
    assert not analysis.flags.user_facing
