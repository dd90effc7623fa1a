"""The heuristic on the conventions of an LLM inference server with pluggable hardware backends.

Such a server (a Rust router and launcher, a Python model server) ships each
hardware backend as a folder of its own under ``backends/`` with a Dockerfile
named for it that builds the image users run (``Dockerfile.neuron``,
``Dockerfile_gaudi``). Every commit is made by git in a temporary repository
and read by the git source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_ROUTER = """\
use clap::Parser;

#[derive(Parser, Debug)]
struct Args {
    #[clap(default_value = "3000", long, env)]
    port: u16,
}

fn main() {
    let args = Args::parse();
    println!("{}", args.port);
}
"""

_GENERATOR = """\
class Generator:
    \"\"\"Batches requests for the accelerator.\"\"\"

    def __init__(self, model):
        self.model = model

    def prefill(self, batch):
        return self.model.forward(batch)
"""

_MODEL = """\
class AcceleratorModel:
    \"\"\"A causal language model compiled for the accelerator.\"\"\"

    def forward(self, batch):
        return [token + 1 for token in batch]
"""

_DOCKERFILE = """\
FROM rust:1.85 AS builder
COPY router router
RUN cargo build --release

FROM public.ecr.aws/neuron/pytorch-inference-neuronx:2.1.2
COPY --from=builder /target/release/router /usr/local/bin/router
COPY backends/neuron/server server
RUN pip install ./server
ENTRYPOINT ["router"]
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "README.md": "# inference server\n",
            "Dockerfile": _DOCKERFILE.replace("neuron", "cuda"),
            "router/src/main.rs": _ROUTER,
            "backends/cuda/server/generator.py": _GENERATOR,
        },
    )


# --------------------------------------------------------------------------- backends arriving as a tree


def _modules(folder: str) -> dict[str, str]:
    """A backend's server: a generator batching requests and the model it drives."""
    return {f"{folder}/generator.py": _GENERATOR, f"{folder}/model.py": _MODEL}


def test_a_backend_folder_with_a_dockerfile_named_for_it_is_a_new_backend(repo: Repo) -> None:
    files = {"Dockerfile.neuron": _DOCKERFILE, **_modules("backends/neuron/server")}
    result = analyse(repo.change("Add accelerator support (#3033)", files))
    # The rubric's new backend: the tree and the image that ships it are the whole registration.
    assert result.type == ChangeType.feat
    assert result.importance == Importance.high
    assert result.flags.user_facing
    assert not result.flags.breaking


def test_a_new_service_image_beside_its_modules_is_no_backend(repo: Repo) -> None:
    files = {"Dockerfile.worker": _DOCKERFILE.replace("backends/neuron/server", "worker"), **_modules("worker")}
    result = analyse(repo.change("Add a worker image (#3040)", files))
    # Not under a folder of backends: a component of the deployment, not a backend users choose.
    assert result.importance != Importance.high


def test_a_backend_folder_without_its_own_image_stays_medium(repo: Repo) -> None:
    result = analyse(repo.change("Add accelerator support (#3034)", _modules("backends/neuron/server")))
    assert result.type == ChangeType.feat
    assert result.importance != Importance.high


# --------------------------------------------------------------------------- fetches bounded by a limit

_FETCH = """\
use std::io::Read;

pub enum ValidationError {
    TooLarge(usize),
    Fetch(reqwest::Error),
}

pub fn fetch_image(url: &str, max_image_fetch_size: usize) -> Result<Vec<u8>, ValidationError> {
    let data = reqwest::blocking::get(url)?.bytes()?;
    Ok(data.to_vec())
}
"""

_FETCH_LIMITED = """\
use std::io::Read;

pub enum ValidationError {
    TooLarge(usize),
    Fetch(reqwest::Error),
}

pub fn fetch_image(url: &str, max_image_fetch_size: usize) -> Result<Vec<u8>, ValidationError> {
    let response = reqwest::blocking::get(url)?;
    let mut data = Vec::new();
    let mut limited = response.take((max_image_fetch_size + 1) as u64);
    limited.read_to_end(&mut data)?;
    if data.len() > max_image_fetch_size {
        return Err(ValidationError::TooLarge(data.len()));
    }
    Ok(data)
}
"""


def test_a_fetched_body_read_through_a_capped_reader_is_a_security_fix(repo: Repo) -> None:
    repo.change("Fetch images in the router (#3300)", {"router/src/validation.rs": _FETCH})
    result = analyse(repo.change("Cap image downloads (#3339)", {"router/src/validation.rs": _FETCH_LIMITED}))
    # One linked image could fill the server's memory: the cap closes it, whatever the title says.
    assert result.flags.security
    assert result.importance == Importance.high


def test_a_capped_iterator_is_no_security_fix(repo: Repo) -> None:
    listing = _FETCH.replace("Ok(data.to_vec())", "Ok(data.iter().copied().collect())")
    repo.change("Fetch images in the router (#3300)", {"router/src/validation.rs": listing})
    capped = listing.replace(".copied().collect()", ".copied().take(max_image_fetch_size).collect()")
    result = analyse(repo.change("Keep the first bytes of an image (#3341)", {"router/src/validation.rs": capped}))
    # The whole body is still read first: only the pair (whole read gone, capped reader in) is the idiom.
    assert not result.flags.security


# --------------------------------------------------------------------------- defaults a title says it makes

_GRAPHS = """\
import os

CUDA_GRAPHS = os.getenv("CUDA_GRAPHS")


def graph_sizes():
    if CUDA_GRAPHS is None:
        return []
    return [int(size) for size in CUDA_GRAPHS.split(",")]
"""


def test_a_title_that_makes_a_feature_the_default_is_a_default_change(repo: Repo) -> None:
    repo.change("Add graph warmup (#1700)", {"server/graphs.py": _GRAPHS})
    default = _GRAPHS.replace(
        "    if CUDA_GRAPHS is None:\n        return []\n", "    if CUDA_GRAPHS is None:\n        return [1, 2, 4, 8]\n"
    )
    result = analyse(repo.change("Add cuda graph sizes and make it default. (#1703)", {"server/graphs.py": default}))
    # What users get without asking changes: the rubric's default that changes behaviour.
    assert result.type == ChangeType.feat
    assert result.importance == Importance.high


def test_a_change_made_to_make_something_default_later_changes_no_default(repo: Repo) -> None:
    repo.change("Add graph warmup (#1700)", {"server/graphs.py": _GRAPHS})
    faster = _GRAPHS.replace("[int(size) for size in", "sorted(int(size) for size in").replace(
        'split(",")]', 'split(","))'
    )
    result = analyse(
        repo.change("Sort graph sizes (to make graphs default later) (#1702)", {"server/graphs.py": faster})
    )
    assert result.importance != Importance.high
