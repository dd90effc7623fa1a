"""The heuristic on conventions ML inference servers share, whatever the project.

Such a server keeps each accelerator platform's code in files named for it
(``rocm_flash_attn.py``, ``xpu_worker.py``, ``csrc/cpu/``). Every commit is
made by git in a temporary repository and read by the git source, as a report
reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

from test_surface import Repo, analyse, heuristic_input

from repodaily.analyzers.heuristic import HeuristicAnalyzer, load_conventions
from repodaily.models import ChangeType, Importance

_BACKEND = """\
class FlashAttentionImpl:
    \"\"\"Attention through the vendor's flash-attention kernels.\"\"\"

    def capture(self, batch, sliding_window):
        if sliding_window or batch.max_query_len > 1:
            raise NotImplementedError("shuffled KV layout")
        return batch
"""
_FIXED = _BACKEND.replace("if sliding_window or batch.max_query_len > 1:", "if batch.max_query_len > 1:")


def test_a_crash_fixed_in_a_file_named_for_one_platform_is_confined_to_it(tmp_path: Path) -> None:
    platform = "engine/attention/backends/rocm_flash_attn.py"
    shared = "engine/attention/backends/flash_attn.py"
    repo = Repo(tmp_path, {platform: _BACKEND, shared: _BACKEND})
    title = "Fix graph capture crash in the vendor FlashAttention backend"
    analysis = analyse(repo.change(title, {platform: _FIXED}))
    assert (analysis.type, analysis.importance) == (ChangeType.fix, Importance.medium)
    assert "`rocm_flash_attn.py`" in analysis.importance_reason
    # The same crash fixed in the backend every platform runs reaches everyone.
    assert analyse(repo.change(title, {shared: _FIXED})).importance == Importance.high


def test_the_framework_upgraded_for_one_platform_reaches_that_platforms_users_only(tmp_path: Path) -> None:
    platform, common = "requirements/xpu.txt", "requirements/common.txt"
    repo = Repo(tmp_path, {platform: "torch==2.7.0\n", common: "torch==2.7.0\n"})
    analysis = analyse(repo.change("[XPU] Upgrade torch to 2.8", {platform: "torch==2.8.0\n"}))
    assert (analysis.type, analysis.importance) == (ChangeType.build, Importance.medium)
    assert "`torch` 2.7.0 → 2.8.0" in analysis.importance_reason
    # The same upgrade for every install is the rubric's major dependency bump.
    assert analyse(repo.change("Upgrade torch to 2.8", {common: "torch==2.8.0\n"})).importance == Importance.high


_VISION_ATTENTION = """\
class VisionAttention:
    \"\"\"Attention over image patches, sharded across tensor-parallel ranks.\"\"\"

    def forward(self, qkv, group):
        if qkv is None:
            raise ValueError("no input")
        if group.size > 1:
            qkv = group.all_gather(qkv)
            qkv = qkv.split(group.size)[group.rank]
        return qkv.softmax()
"""


def test_redundant_device_work_removed_is_a_performance_change(tmp_path: Path) -> None:
    path = "engine/models/vision.py"
    repo = Repo(tmp_path, {path: _VISION_ATTENTION})
    gathered = (
        "        if group.size > 1:\n"
        "            qkv = group.all_gather(qkv)\n"
        "            qkv = qkv.split(group.size)[group.rank]\n"
    )
    lean = _VISION_ATTENTION.replace(gathered, "")
    assert analyse(repo.change("Remove redundant all gather + split", {path: lean})).type == ChangeType.perf
    # Redundant code that does no device work is cleanup.
    unchecked = lean.replace('        if qkv is None:\n            raise ValueError("no input")\n', "")
    assert analyse(repo.change("Remove redundant None check", {path: unchecked})).type == ChangeType.refactor


_MODEL = """\
class JaisForCausalLM:
    \"\"\"The JAIS decoder.\"\"\"

    def load_weights(self, weights):
        params = dict(self.named_parameters())
        loaded = set()
        for name, tensor in weights:
            if "relative_pe" in name:
                continue
            params[name].weight_loader(params[name], tensor)
            loaded.add(name)
        return loaded
"""
_SHARED_LOADER = """\
from engine.models.utils import AutoWeightsLoader


class JaisForCausalLM:
    \"\"\"The JAIS decoder.\"\"\"

    def load_weights(self, weights):
        loader = AutoWeightsLoader(self, skip_prefixes=["relative_pe"])
        return loader.load_weights(weights)
"""


def test_a_model_moved_onto_the_shared_weight_loader_is_a_vllm_refactor(tmp_path: Path) -> None:
    path = "vllm/model_executor/models/jais.py"
    repo = Repo(tmp_path, {path: _MODEL})
    commit = repo.change("[Model] Add AutoWeightsLoader support for jais", {path: _SHARED_LOADER})
    analyzer = HeuristicAnalyzer(language="en", conventions=load_conventions("vllm"))
    analysis = analyzer.analyze_sync(heuristic_input(commit, analyzer))
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)


_VL_MODEL = """\
class Qwen2VLForConditionalGeneration:
    \"\"\"Qwen2-VL: a vision encoder in front of the Qwen2 decoder.\"\"\"

    def get_mrope_input_positions(self, input_tokens, image_grid_thw):
        positions = []
        for t, h, w in image_grid_thw:
            positions.append(self.grid_positions(t, h // 2, w // 2))
        return self.merge(input_tokens, positions)
"""
_VL_MIGRATED = """\
class Qwen2VLForConditionalGeneration:
    \"\"\"Qwen2-VL: a vision encoder in front of the Qwen2 decoder.\"\"\"

    def get_mrope_input_positions(self, input_tokens, mm_features):
        positions = []
        for feature in sorted(mm_features, key=lambda f: f.mm_position.offset):
            t, h, w = feature.data["image_grid_thw"].tolist()
            positions.append(self.grid_positions(t, h // 2, w // 2))
        return self.merge(input_tokens, positions)
"""


def test_a_model_told_to_use_an_in_tree_mechanism_is_a_vllm_refactor(tmp_path: Path) -> None:
    path = "vllm/model_executor/models/qwen2_vl.py"
    repo = Repo(tmp_path, {path: _VL_MODEL})
    analyzer = HeuristicAnalyzer(language="en", conventions=load_conventions("vllm"))

    def judge(title: str) -> tuple[ChangeType, Importance]:
        analysis = analyzer.analyze_sync(heuristic_input(repo.change(title, {path: _VL_MIGRATED}), analyzer))
        repo.change("Restore", {path: _VL_MODEL})
        return analysis.type, analysis.importance

    migrated = judge("[Model] Use mm_position to compute mrope positions for Qwen2-VL")
    assert migrated == (ChangeType.refactor, Importance.low)
    # The same edit the title calls a fix is one.
    assert judge("[Model] Use mm_position to fix wrong mrope positions for Qwen2-VL")[0] == ChangeType.fix


def _table(rows: int, *, aligned: bool) -> str:
    """A kernel-config table the formatter was told to leave alone (``aligned``), or the same table laid out anew."""
    if aligned:
        body = "".join(f"    ({i:>4}, {i * 2:>5}),  # block sizes\n" for i in range(rows))
        return f"# yapf: disable\nCONFIGS = [\n{body}]\n# yapf: enable\n"
    body = "".join(f"    ({i}, {i * 2}),  # block sizes\n" for i in range(rows))
    return f"CONFIGS = [\n{body}]\n"


def test_formatter_markers_dropped_and_the_code_laid_out_anew_is_a_low_refactor(tmp_path: Path) -> None:
    # Hundreds of core lines change, but only as the formatter lays them out once its markers go.
    path = "vllm/model_executor/layers/fused_moe/configs.py"
    repo = Repo(tmp_path, {path: _table(600, aligned=True)})
    analyzer = HeuristicAnalyzer(language="en", conventions=load_conventions("vllm"))
    commit = repo.change("Remove all references to the old formatter", {path: _table(600, aligned=False)})
    analysis = analyzer.analyze_sync(heuristic_input(commit, analyzer))
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)
    # A value changed beside the markers is code: the large core change carries its risk again.
    repo.change("Restore", {path: _table(600, aligned=True)})
    retuned = _table(600, aligned=False).replace("(7, 14)", "(7, 16)")
    commit = repo.change("Remove all references to the old formatter", {path: retuned})
    assert analyzer.analyze_sync(heuristic_input(commit, analyzer)).importance == Importance.medium


def _decoder(name: str, loop: str) -> str:
    """A model's decoder stack whose forward walks this pipeline rank's layers with ``loop``."""
    return (
        f"class {name}Model:\n"
        f'    """The {name} decoder stack."""\n\n'
        "    def forward(self, hidden_states):\n"
        f"        {loop}\n"
        "            hidden_states = layer(hidden_states)\n"
        "        return hidden_states\n"
    )


_SLICED = "for layer in self.layers[self.start_layer:self.end_layer]:"
_ISLICED = "for layer in islice(self.layers, self.start_layer, self.end_layer):"
_FAMILIES = ("Llama", "Qwen2", "Mistral", "Phi", "Gemma", "Granite", "Olmo", "Falcon")


def test_one_edit_repeated_across_every_model_is_a_low_refactor(tmp_path: Path) -> None:
    paths = {name: f"engine/models/{name.lower()}.py" for name in _FAMILIES}
    repo = Repo(tmp_path, {path: _decoder(name, _SLICED) for name, path in paths.items()})
    swept = {path: "from itertools import islice\n\n\n" + _decoder(name, _ISLICED) for name, path in paths.items()}
    analysis = analyse(repo.change("[Models] Improve iteration over layers", swept))
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)
    # Each model's loop changed its own way is no shared edit: the tag's model work again.
    varied = {path: _decoder(name, f"for layer in self.{name.lower()}_layers():") for name, path in paths.items()}
    assert analyse(repo.change("[Models] Improve iteration over layers", varied)).type == ChangeType.feat


_JSONTREE = """\
def json_map_leaves(func, value):
    \"\"\"Apply ``func`` to every leaf of a nested structure of dicts, lists and tuples.\"\"\"
    if isinstance(value, dict):
        return {k: json_map_leaves(func, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(json_map_leaves(func, v) for v in value)
    return func(value)
"""
_COUNTED = (
    _JSONTREE
    + """

def json_count_leaves(value):
    \"\"\"The number of leaves of a nested structure of dicts, lists and tuples.\"\"\"
    if isinstance(value, dict):
        return sum(json_count_leaves(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(json_count_leaves(v) for v in value)
    return 1
"""
)


def test_a_utility_function_added_for_vllms_own_modules_is_a_low_refactor(tmp_path: Path) -> None:
    path = "vllm/utils/jsontree.py"
    repo = Repo(tmp_path, {path: _JSONTREE})
    analyzer = HeuristicAnalyzer(language="en", conventions=load_conventions("vllm"))

    def judge(title: str) -> tuple[ChangeType, Importance]:
        analysis = analyzer.analyze_sync(heuristic_input(repo.change(title, {path: _COUNTED}), analyzer))
        repo.change("Restore", {path: _JSONTREE})
        return analysis.type, analysis.importance

    assert judge("Adds `json_count_leaves` utility function") == (ChangeType.refactor, Importance.low)
    assert judge("[Misc] Introduce a leaf-counting helper") == (ChangeType.refactor, Importance.low)
    # The same function named as what the project now offers is still a feature.
    assert judge("Add `json_count_leaves` to count nested leaves") == (ChangeType.feat, Importance.medium)


_MOE_CONFIG = """\
class MoEParallelConfig:
    \"\"\"How a mixture-of-experts layer is split across ranks.\"\"\"

    use_deepep_kernels: bool = False
    use_nixl_kernels: bool = False

    @property
    def batched_activations(self):
        return self.use_deepep_kernels
"""


def _moe_tests(cases: int) -> str:
    """A test module checking the layer for ``cases`` expert counts."""
    body = "import pytest\n\nfrom engine.layers.moe.config import MoEParallelConfig\n"
    for n in range(cases):
        body += (
            f"\n\ndef test_moe_layer_with_{n + 2}_experts():\n"
            "    config = MoEParallelConfig()\n"
            f"    config.use_nixl_kernels = {n % 2 == 0}\n"
            f"    assert config.batched_activations in (True, False), {n + 2}\n"
        )
    return body


def test_a_title_adding_tests_on_a_diff_of_mostly_tests_is_a_low_test_change(tmp_path: Path) -> None:
    config, tests = "engine/layers/moe/config.py", "tests/layers/test_moe_layer.py"
    repo = Repo(tmp_path, {config: _MOE_CONFIG, tests: _moe_tests(2)})
    tweaked = _MOE_CONFIG.replace(
        "return self.use_deepep_kernels", "return self.use_deepep_kernels or self.use_nixl_kernels"
    )
    title = "[MoE Refactor] Add more MoE layer tests"
    analysis = analyse(repo.change(title, {config: tweaked, tests: _moe_tests(12)}))
    assert (analysis.type, analysis.importance, analysis.flags.user_facing) == (ChangeType.test, Importance.low, False)
    # The same title on a diff whose source carries more than a fifth of the lines: the series tag's refactor.
    reworked = tweaked + "".join(
        f"\n    def experts_on_rank_{n}(self, experts):\n        return experts[{n}::8]\n" for n in range(8)
    )
    assert analyse(repo.change(title, {config: reworked, tests: _moe_tests(14)})).type == ChangeType.refactor


def test_a_title_adding_tests_that_also_names_a_fix_or_a_changelog_entry_is_not_only_tests(tmp_path: Path) -> None:
    config, tests, changelog = "engine/layers/moe/config.py", "tests/layers/test_moe_layer.py", "CHANGELOG.md"
    repo = Repo(tmp_path, {config: _MOE_CONFIG, tests: _moe_tests(2), changelog: "# Changelog\n\n## Unreleased\n"})
    tweaked = _MOE_CONFIG.replace(
        "return self.use_deepep_kernels", "return self.use_deepep_kernels or self.use_nixl_kernels"
    )
    # The title goes on past its tests to a second clause: the one-line source change is that clause's.
    clause = analyse(
        repo.change("Improve MoE layer tests, batch NIXL activations", {config: tweaked, tests: _moe_tests(12)})
    )
    assert clause.type != ChangeType.test
    # The changelog records the source change for users: more than tests.
    entry = "# Changelog\n\n## Unreleased\n\n- NIXL kernels now use batched activations.\n"
    restored = {config: _MOE_CONFIG, tests: _moe_tests(2)}
    repo.change("Restore the layer", restored)
    recorded = analyse(
        repo.change("Add more MoE layer tests", {config: tweaked, tests: _moe_tests(12), changelog: entry})
    )
    assert recorded.type != ChangeType.test


_KERNEL_CONFIG = """\
from typing import Literal

MoEBackend = Literal[
    "auto",
    "triton",
    "deep_gemm",
    "cutlass",
    "flashinfer_trtllm",
    "flashinfer_cutlass",
    "marlin",
    "aiter",
]


class KernelConfig:
    \"\"\"Which kernels the layers run.\"\"\"

    moe_backend: MoEBackend = "auto"
    \"\"\"The MoE kernels: "auto" picks the fastest the GPU supports.\"\"\"
"""
_EMULATION_EXPERTS = """\
class EmulatedFp4Experts:
    \"\"\"FP4 experts run on GPUs without FP4 units: weights dequantized to BF16 on the fly.\"\"\"

    def apply(self, hidden_states, weights):
        return hidden_states @ weights.dequantize().t()
"""


def test_a_backend_added_to_the_choices_a_backend_alias_lists_is_a_feature(tmp_path: Path) -> None:
    config, experts = "engine/config/kernel.py", "engine/layers/moe/emulated_fp4_experts.py"
    repo = Repo(tmp_path, {config: _KERNEL_CONFIG})
    # The hunk starts inside the list: git names the alias in its header only.
    chosen = _KERNEL_CONFIG.replace('    "aiter",\n', '    "aiter",\n    "emulation",\n')
    title = "[NVFP4] FP4 MoE emulation fallback for GPUs without FP4 units"
    analysis = analyse(repo.change(title, {config: chosen, experts: _EMULATION_EXPERTS}))
    assert (analysis.type, analysis.flags.user_facing) == (ChangeType.feat, True)
    assert any(s.name == "emulation" for s in analysis.surface)


_MLA_WEIGHTS = """\
class MLAAttention:
    \"\"\"Multi-head latent attention, absorbing the KV up-projection into its weights.\"\"\"

    def absorb(self, kv_b_proj):
        weight = kv_b_proj.weight
        return weight.T.contiguous()
"""


def test_a_crash_fixed_for_one_quantisation_scheme_is_confined_to_its_users(tmp_path: Path) -> None:
    path = "engine/layers/attention/mla_attention.py"
    repo = Repo(tmp_path, {path: _MLA_WEIGHTS})
    fixed = _MLA_WEIGHTS.replace("weight = kv_b_proj.weight", "weight = kv_b_proj.dequantized_weight()")
    quantised = analyse(repo.change("[Bugfix] Fix MLA attention crash with AWQ/GPTQ quantized models", {path: fixed}))
    assert (quantised.type, quantised.importance) == (ChangeType.fix, Importance.medium)
    for title in ("Fix broken MTP weight loading for FP8 KV scales", "Fix NVFP4 checkpoint weight loading"):
        assert analyse(repo.change(title, {path: fixed})).importance == Importance.medium
    # The same crash in every model's attention reaches everyone.
    assert analyse(repo.change("[Bugfix] Fix MLA attention crash", {path: fixed})).importance == Importance.high


_DECODER = """\
class ApertusForCausalLM:
    \"\"\"Apertus: a Llama-style decoder with xIELU activations.\"\"\"

    def load_weights(self, weights):
        loaded = set()
        for name, tensor in weights:
            self.params[name].copy_(tensor)
            loaded.add(name)
        return loaded
"""


def test_a_crash_fixed_in_one_models_own_module_is_confined_to_that_model(tmp_path: Path) -> None:
    model, shared = "vllm/model_executor/models/apertus.py", "vllm/model_executor/models/utils.py"
    base = "vllm/model_executor/models/llama.py"
    repo = Repo(tmp_path, {model: _DECODER, shared: _DECODER, base: _DECODER})
    fixed = _DECODER.replace("self.params[name]", "self.params[name.removeprefix('model.')]")
    analyzer = HeuristicAnalyzer(language="en", conventions=load_conventions("vllm"))

    def judge(path: str) -> tuple[ChangeType, Importance]:
        commit = repo.change("Fix weights loading crash", {path: fixed})
        analysis = analyzer.analyze_sync(heuristic_input(commit, analyzer))
        repo.change("Restore", {path: _DECODER})
        return analysis.type, analysis.importance

    assert judge(model) == (ChangeType.fix, Importance.medium)
    # The same crash fixed in a module every model shares, or in the family other models are built from,
    # reaches everyone.
    assert judge(shared) == (ChangeType.fix, Importance.high)
    assert judge(base) == (ChangeType.fix, Importance.high)
