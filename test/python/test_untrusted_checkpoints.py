"""A checkpoint directory is untrusted input (docs/guide.md, "What is checked"): config.json is
checked against a table of its keys before anything is built; every refusal is one
CompileError naming the key (or the file and the tensor) and a CKPT rule."""
import json
import re

import pytest

import ascend_mla
from ascend_mla.models import checkpoint
from ascend_mla.models.config_keys import DEEPSEEK_KEYS, INT, NUMBER, Key, Rule

# DeepSeek-V3's config.json as the hub ships it (attention dims; layers, experts and vocab small)
V3 = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "vocab_size": 512,
      "hidden_size": 7168, "intermediate_size": 256, "moe_intermediate_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 8, "num_key_value_heads": 8, "q_lora_rank": 1536, "kv_lora_rank": 512,
      "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "n_routed_experts": 8,
      "n_shared_experts": 1, "num_experts_per_tok": 2, "n_group": 2, "topk_group": 1, "first_k_dense_replace": 1,
      "routed_scaling_factor": 2.5, "norm_topk_prob": True, "scoring_func": "sigmoid", "topk_method": "noaux_tc",
      "max_position_embeddings": 4096, "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "tie_word_embeddings": False,
      "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096, "beta_fast": 32,
                       "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0},
      "bos_token_id": 0, "eos_token_id": 1, "num_nextn_predict_layers": 1, "torch_dtype": "bfloat16",
      "transformers_version": "4.46.3", "use_cache": True, "aux_loss_alpha": 0.001, "ep_size": 1,
      "seq_aux": True, "moe_layer_freq": 1, "pretraining_tp": 1, "initializer_range": 0.02,
      "attention_bias": False, "attention_dropout": 0.0, "hidden_act": "silu"}

BAD = [  # (key, value, words of the reason)
    ("num_hidden_layers", "2", "expected an integer in [1, 1024] (decoder layers), got '2' (a string)"),
    ("num_hidden_layers", 2.5, "got 2.5 (a number)"),
    ("num_hidden_layers", 2.0, "got 2.0 (a number)"),
    ("num_hidden_layers", True, "got true (a flag)"),
    ("num_hidden_layers", 1000000, "got 1000000"),
    ("num_hidden_layers", None, "got null"),
    ("num_attention_heads", 0, "got 0"),
    ("num_attention_heads", "8", "(a string)"),
    ("hidden_size", -7168, "got -7168"),
    ("vocab_size", 10 ** 400, "got an integer of 401 digits"),
    ("kv_lora_rank", [512], "got a list of 1"),
    ("q_lora_rank", 0, "or null, got 0"),
    ("qk_rope_head_dim", 63, "63: the rope rotates pairs"),
    ("n_group", 0, "expected an integer in [1, 4096] (expert groups) or null, got 0"),
    ("n_group", 3, "3 must divide the 8 experts the router scores"),
    ("topk_group", 3, "3 must be at most n_group 2"),
    ("num_experts_per_tok", 9, "9 must be in [1, 4]"),
    ("routed_scaling_factor", "2.5", "(a string)"),
    ("rms_norm_eps", -1, "got -1"),
    ("rms_norm_eps", True, "got true (a flag)"),
    ("norm_topk_prob", 1, "expected true or false"),
    ("tie_word_embeddings", "false", "expected true or false"),
    ("scoring_func", "tanh", "expected one of 'sigmoid', 'softmax'"),
    ("topk_method", "greedy", "'greedy' with sigmoid scores is not a router"),
    ("eos_token_id", 9999, "9999 is outside the vocabulary [0, 512)"),
    ("eos_token_id", [1, "2"], "a list holding '2' (a string)"),
    ("bos_token_id", -1, "got -1"),
    ("eos_token_id", [1, 512], "512 is outside the vocabulary [0, 512)"),
    ("max_position_embeddings", 2 ** 40, "got 1099511627776"),
    ("num_nextn_predict_layers", -1, "got -1"),
    ("model_type", ["deepseek_v3"], "expected a string"),
    ("architectures", "DeepseekV3ForCausalLM", "expected a list"),
    ("model_type", None, "got null"),
    ("num_key_value_heads", "8", "(a string)"),                     # inert keys are typed too
]


@pytest.mark.parametrize("key,value,words", BAD, ids=[f"{k}={v!r:.20}" for k, v, _ in BAD])
def test_a_bad_config_value_is_one_error_naming_the_key(key, value, words):
    with pytest.raises(ascend_mla.CompileError) as e:
        checkpoint.read_config(dict(V3, **{key: value}))
    assert str(e.value).startswith(f"config: {key}: ") and words in str(e.value), str(e.value)
    assert str(e.value).endswith("[CKPT-CONFIG]") and "\n" not in str(e.value)


ROPE_BAD = [
    ("factor", -40, "factor: expected a number in [1, 1e+06]"),
    ("factor", "40", "(a string)"),
    ("original_max_position_embeddings", 4096.5, "(a number)"),
    ("beta_fast", None, "got null"),
    ("truncate", "yes", "expected true or false"),
]


@pytest.mark.parametrize("key,value,words", ROPE_BAD, ids=[f"{k}={v!r}" for k, v, _ in ROPE_BAD])
def test_bad_rope_parameters_are_named(key, value, words):
    with pytest.raises(ascend_mla.CompileError, match=r"^config: rope_scaling: .*\[CKPT-CONFIG\]$") as e:
        checkpoint.read_config(dict(V3, rope_scaling=dict(V3["rope_scaling"], **{key: value})))
    assert words in str(e.value), str(e.value)


def test_the_model_type_decides_whatever_the_architectures_say():
    """model_type "llama" with a DeepSeek architecture ran as DeepSeek-V3; without a model_type
    the architectures decide."""
    with pytest.raises(ascend_mla.CompileError, match=r"model_type: 'llama' is not an MLA model family the compiler "
                                                      r"knows .*\[CKPT-CONFIG\]$"):
        checkpoint.read_config(dict(V3, model_type="llama"))
    no_type = {k: v for k, v in V3.items() if k != "model_type"}
    assert checkpoint.read_config(no_type).model_type == "deepseek_v3"
    assert checkpoint.read_config(dict(no_type, architectures=["DeepseekV2ForCausalLM"])).model_type == "deepseek_v2"


def test_unknown_keys_are_named_in_a_note_and_known_ones_are_not(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(V3))
    assert checkpoint.read_config(tmp_path).notes == ()
    (tmp_path / "config.json").write_text(json.dumps(dict(V3, use_mtp_head=True, scale_emb=12)))
    notes = checkpoint.read_config(tmp_path).notes
    assert len(notes) == 1 and notes[0].endswith("keys this reader does not know, ignored: scale_emb, use_mtp_head")
    assert str(tmp_path / "config.json") in notes[0]


def test_a_family_extends_the_table():
    """A family description adds its keys and rules to the DeepSeek table (config_keys.py)."""
    family = DEEPSEEK_KEYS.extend(
        Key("scale_emb", NUMBER, low=0, high=1e3, meaning="embedding multiplier"),
        Key("dim_model_base", INT, low=1, high=1 << 16),
        rules=[Rule("dim_model_base", lambda c: None if c.get("dim_model_base", 1) <= c["hidden_size"]
                    else "must be at most hidden_size")],
        without=("n_group",))
    assert "n_group" not in family.keys and "n_group" in DEEPSEEK_KEYS.keys      # the base is unchanged
    assert checkpoint.read_config(dict(V3, scale_emb=12, dim_model_base=256), keys=family).notes == ()
    with pytest.raises(ascend_mla.CompileError, match=r"config: scale_emb: expected a number in \[0, 1000\] "
                                                      r"\(embedding multiplier\), got true \(a flag\)"):
        checkpoint.read_config(dict(V3, scale_emb=True), keys=family)
    with pytest.raises(ascend_mla.CompileError, match=r"config: dim_model_base: must be at most hidden_size"):
        checkpoint.read_config(dict(V3, dim_model_base=10 ** 4), keys=family)


def test_every_checkpoint_rule_is_in_the_errors_table():
    """docs/errors.md's table of CKPT rules names every rule the package raises (and no other)."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    sources = [f for f in root.rglob("*.py") if f.relative_to(root).parts[0] not in (".venv", "test", "build")]
    raised = {m for f in sources for m in re.findall(r"CKPT-[A-Z]+", f.read_text())}
    text = (root / "docs" / "errors.md").read_text()
    table = {m for row in text.splitlines() if row.startswith("| CKPT-") for m in re.findall(r"CKPT-[A-Z]+", row.split("|")[1])}
    assert raised and raised == table, (sorted(raised - table), sorted(table - raised))


def test_the_config_file_itself(tmp_path):
    """Not JSON, not an object, nested past the parser's recursion, NaN and huge numbers."""
    cases = {"[1, 2]": "expected a JSON object", "{": "not valid JSON", "": "not valid JSON",
             "\udcff": "not UTF-8 text", "[" * 100000 + "]" * 100000: "JSON nested too deeply to read",
             json.dumps(V3).replace('"rms_norm_eps": 1e-06', '"rms_norm_eps": NaN'): "rms_norm_eps",
             json.dumps(V3).replace('"rope_theta": 10000.0', '"rope_theta": 1e400'): "rope_theta"}
    for text, words in cases.items():
        (tmp_path / "config.json").write_bytes(text.encode("utf-8", "surrogateescape"))
        with pytest.raises(ascend_mla.CompileError, match=r"\[CKPT-CONFIG\]$") as e:
            checkpoint.read_config(tmp_path)
        assert words in str(e.value) and str(tmp_path / "config.json") in str(e.value), (text[:40], str(e.value))


# --- the files: confined, regular, checked headers -------------------------------------------------

import os  # noqa: E402
import struct  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

import numpy as np  # noqa: E402

OPENED = []            # paths the audit hook saw opened while RECORDING is set
RECORDING = threading.Event()


def _audit(event, args):
    if event == "open" and RECORDING.is_set() and isinstance(args[0], (str, bytes, os.PathLike)):
        OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


def _opened_during(fn):
    OPENED.clear()
    RECORDING.set()
    try:
        return fn()
    finally:
        RECORDING.clear()


def _write_safetensors(path, tensors: dict, header_edit=None, length=None, tail=b""):
    """A safetensors file written by hand: tensors back to back in the given order; the header
    (a dict) edited by `header_edit` and its length field forged by `length`."""
    header, data = {}, b""
    for name, a in tensors.items():
        header[name] = {"dtype": {"float32": "F32", "int64": "I64"}[str(a.dtype)], "shape": list(a.shape),
                        "data_offsets": [len(data), len(data) + a.nbytes]}
        data += a.tobytes()
    if header_edit:
        header_edit(header)
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text) if length is None else length) + text + data + tail)
    return path


TENSORS = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones(4, np.float32)}


def _offsets(name, start, end):
    def edit(h):
        h[name]["data_offsets"] = [start, end]
    return edit


HEADERS = [  # (how the file is broken, its writer's arguments, the words of the refusal)
    ("negative offset", dict(header_edit=_offsets("a", -8, 16)), "tensor a: data_offsets [-8, 16]: expected two non-negative"),
    ("overlapping", dict(header_edit=_offsets("b", 8, 24)), "tensor b: data_offsets [8, 24] overlaps the tensor before it"),
    ("gap", dict(header_edit=_offsets("b", 28, 44), tail=b"xxxx"), "tensor b: data_offsets [28, 44] leaves a gap"),
    ("out of bounds", dict(header_edit=_offsets("b", 24, 1 << 40)), "tensor b: data_offsets [24, 1099511627776] hold"),
    ("size != shape x dtype", dict(header_edit=lambda h: h["a"].update(shape=[2, 2])), "tensor a: data_offsets [0, 24] hold 24 bytes; shape [2, 2] of F32 is 16"),
    ("negative dim", dict(header_edit=lambda h: h["b"].update(shape=[-4])), "tensor b: shape [-4]"),
    ("float dim", dict(header_edit=lambda h: h["b"].update(shape=[4.0])), "tensor b: shape [4.0]"),
    ("huge shape", dict(header_edit=lambda h: h["b"].update(shape=[2 ** 40, 2 ** 40])), "tensor b: data_offsets [24, 40] hold 16 bytes"),
    ("unknown dtype", dict(header_edit=lambda h: h["b"].update(dtype="F128")), "tensor b: dtype 'F128'"),
    ("no offsets", dict(header_edit=lambda h: h["b"].pop("data_offsets")), "tensor b: expected an object with dtype, shape and data_offsets"),
    ("truncated", dict(tail=b"", header_edit=lambda h: None, length=None), None),      # written short below
    ("trailing bytes", dict(tail=b"\0" * 8), "8 bytes before its end"),
    ("header length past the end", dict(length=5000), "header length 5000 runs past the end of the file"),
    ("forged header length", dict(length=3 << 30), "header length 3221225472 is over the format's cap of 100000000"),
    ("metadata not strings", dict(header_edit=lambda h: h.update(__metadata__={"x": 1})), "__metadata__: expected an object of strings"),
]


@pytest.mark.parametrize("how,kwargs,words", HEADERS, ids=[h[0] for h in HEADERS])
def test_a_broken_safetensors_header_names_the_file_and_tensor(tmp_path, how, kwargs, words):
    from safetensors import safe_open

    from ascend_mla.models.checkpoint_files import read_header
    file = _write_safetensors(tmp_path / "model.safetensors", TENSORS, **kwargs)
    if how == "truncated":
        file.write_bytes(file.read_bytes()[:-4])
        words = "tensor b: data_offsets [24, 40] run past the end of the file (36 bytes of data)"
    fd = os.open(file, os.O_RDONLY)
    try:
        with pytest.raises(ascend_mla.CompileError) as e:
            read_header(fd, str(file), str(file))
    finally:
        os.close(fd)
    assert str(e.value).startswith(f"{file}: ") and words in str(e.value), str(e.value)
    assert str(e.value).endswith("[CKPT-HEADER]")
    # the safetensors library refuses each of these files too (what docs/guide.md says we rely on)
    with pytest.raises(Exception, match="(?i)error|invalid|overflow|too large|incomplete"):
        with safe_open(str(file), framework="np"):
            pass


def test_duplicate_names_in_a_header_are_refused(tmp_path):
    """Two parsers (ours and the library's) must not read one header two ways."""
    from ascend_mla.models.checkpoint_files import read_header
    text = (b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
            b'"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}')
    file = tmp_path / "dup.safetensors"
    file.write_bytes(struct.pack("<Q", len(text)) + text + b"\0" * 8)
    fd = os.open(file, os.O_RDONLY)
    with pytest.raises(ascend_mla.CompileError, match=r"header: not valid JSON: the name 'a' appears twice \[CKPT-HEADER\]"):
        read_header(fd, str(file), str(file))
    os.close(fd)


def _checkpoint(tmp_path, shards: dict, weight_map=None, config=None):
    """A checkpoint directory: config.json (V3 by default), the shard files, an index."""
    root = tmp_path / "ckpt"
    root.mkdir(exist_ok=True)
    (root / "config.json").write_text(json.dumps(config or V3))
    for name, tensors in shards.items():
        _write_safetensors(root / name, tensors)
    if weight_map is not None:
        (root / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    return root


def _outside(tmp_path):
    """A valid safetensors file outside the checkpoint directory (what a hostile index points at)."""
    (tmp_path / "outside").mkdir(exist_ok=True)
    return _write_safetensors(tmp_path / "outside" / "model.safetensors", {"b": np.full(4, 7, np.float32)})


ESCAPES = [  # (the index's shard name for tensor b, the words of the refusal)
    ("../outside/model.safetensors", "points outside the checkpoint directory"),
    ("sub/../../outside/model.safetensors", "points outside the checkpoint directory"),
    ("/etc/passwd", "points outside the checkpoint directory"),
    ("/dev/urandom", "points outside the checkpoint directory"),
    ("", "is not a file name"),
    ("link.safetensors", "is a link to"),                  # a link in the directory to the outside file
    ("passwd.safetensors", "is a link to /etc/passwd"),
    ("fifo.safetensors", "not a regular file (a FIFO)"),
    ("urandom.safetensors", "is a link to /dev/urandom"),
    ("dir.safetensors", "not a regular file (a directory)"),
]


@pytest.mark.parametrize("shard,words", ESCAPES, ids=[e[0] or "empty" for e in ESCAPES])
def test_the_index_cannot_send_the_reader_outside_the_directory(tmp_path, shard, words):
    outside = _outside(tmp_path)
    root = _checkpoint(tmp_path, {"model-a.safetensors": {"a": TENSORS["a"]}},
                       weight_map={"a": "model-a.safetensors", "b": shard})
    (root / "link.safetensors").symlink_to(outside)
    (root / "passwd.safetensors").symlink_to("/etc/passwd")
    (root / "urandom.safetensors").symlink_to("/dev/urandom")
    os.mkfifo(root / "fifo.safetensors")
    (root / "dir.safetensors").mkdir()
    with pytest.raises(ascend_mla.CompileError) as e:
        _opened_during(lambda: checkpoint.load_tensors(root, checkpoint.read_config(root)))
    assert words in str(e.value) and str(e.value).endswith(("[CKPT-PATH]", "[CKPT-FILES]")), str(e.value)
    real_root = os.path.realpath(root)
    assert all(os.path.realpath(p).startswith(real_root + os.sep) for p in OPENED), OPENED


def test_a_fifo_or_device_as_config_or_shard_never_blocks(tmp_path):
    """A FIFO config.json, generation_config.json or model.safetensors is refused without
    being opened (opening a FIFO for reading waits for a writer)."""
    for name in ("config.json", "generation_config.json", "model.safetensors"):
        root = tmp_path / name.replace(".", "_")
        root.mkdir()
        if name != "config.json":
            (root / "config.json").write_text(json.dumps(V3))
        if name != "model.safetensors":
            _write_safetensors(root / "model.safetensors", TENSORS)
        os.mkfifo(root / name)
        done = []

        def load(root=root):
            try:
                checkpoint.generation_tokens(root)
                checkpoint.load_tensors(root, checkpoint.read_config(root))
            except ascend_mla.CompileError as e:
                done.append(str(e))
        t = threading.Thread(target=load, daemon=True)
        t.start()
        t.join(20)
        assert done and "not a regular file (a FIFO): refused [CKPT-PATH]" in done[0], (name, done)
        assert str(root / name) in done[0]


def test_hub_cache_links_are_followed(tmp_path):
    """The Hugging Face cache: snapshots/<rev>/<file> links to ../../blobs/<hash>."""
    repo = tmp_path / "models--org--name"
    blobs, snapshot = repo / "blobs", repo / "snapshots" / "abc123"
    blobs.mkdir(parents=True)
    snapshot.mkdir(parents=True)
    _write_safetensors(blobs / "1111", TENSORS)
    (blobs / "2222").write_text(json.dumps(V3))
    (snapshot / "model.safetensors").symlink_to("../../blobs/1111")
    (snapshot / "config.json").symlink_to("../../blobs/2222")
    tensors = checkpoint.load_tensors(snapshot, checkpoint.read_config(snapshot))
    np.testing.assert_array_equal(tensors["a"].astype(np.float32), TENSORS["a"])


def test_an_index_and_its_shards_must_agree(tmp_path):
    """A tensor the index does not list, or lists in another shard, or lists in a shard that
    does not hold it: one error naming the tensor and the files."""
    root = _checkpoint(tmp_path, {"s1.safetensors": {"a": TENSORS["a"]}, "s2.safetensors": {"b": TENSORS["b"]}},
                       weight_map={"a": "s1.safetensors"})
    index = root / "model.safetensors.index.json"
    shards = {"a": "s1.safetensors", "b": "s2.safetensors"}
    for weight_map, words in [({"a": "s1.safetensors", "z": "s2.safetensors"}, "holds tensor b, which"),
                              ({"a": "s1.safetensors", "b": "s2.safetensors", "c": "s1.safetensors"},
                               "names tensor c in s1.safetensors, which does not hold it"),
                              ([1, 2], "expected {\"weight_map\""), ({**shards, "b": 3}, "expected {\"weight_map\"")]:
        index.write_text(json.dumps({"weight_map": weight_map}))
        with pytest.raises(ascend_mla.CompileError, match=r"\[CKPT-FILES\]$") as e:
            checkpoint.tensor_index(root)
        assert words in str(e.value), str(e.value)
    index.write_text(json.dumps({"weight_map": shards}))
    assert set(checkpoint.tensor_index(root)) == {"a", "b"}


# --- weights, notes, positions, threads (tiny checkpoints: tiny_checkpoints.py) ---------------------

from tiny_checkpoints import TINY, tiny_weights, write_tiny  # noqa: E402

from ascend_mla.models import deepseek  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return write_tiny(tmp_path_factory.mktemp("tiny") / "ckpt")


@pytest.fixture(scope="module")
def tiny_lm(tiny):
    return deepseek.CausalLM.from_pretrained(tiny, target="cpu")


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 3.4e38])
def test_nan_or_inf_weights_are_refused_naming_the_tensor(tmp_path, value):
    """NaN/Inf in a weight ran and printed `0 0`. fp32 3.4e38 is finite but past bf16's range:
    Inf once cast, refused alike. allow_nonfinite=True loads it anyway."""
    tensors = tiny_weights()
    name = "model.layers.1.mlp.experts.gate_up_proj"
    tensors[name] = tensors[name].copy()
    tensors[name][2, 5, 7] = value
    path = write_tiny(tmp_path / "ckpt", tensors=tensors)
    with pytest.raises(ascend_mla.CompileError) as e:
        deepseek.CausalLM.from_pretrained(path, target="cpu")
    assert str(e.value) == (f"{path}/model.safetensors: tensor {name}: 1 NaN or Inf value (the first at (2, 5, 7)); "
                            f"a model with them computes NaN (allow_nonfinite=True loads it anyway) [CKPT-NONFINITE]")
    loaded = checkpoint.load_tensors(path, allow_nonfinite=True)
    assert not np.isfinite(loaded[name].astype(np.float32)[2, 5, 7])
    if not np.isfinite(value):          # checked before int8 quantization too (3.4e38 quantizes)
        with pytest.raises(ascend_mla.CompileError, match=r"tensor model\.layers\.1\.mlp\.experts\.gate_up_proj: 1 NaN"):
            checkpoint.load_tensors(path, quant="w8a8")


def test_the_mtp_layer_is_named_once_as_skipped(tmp_path):
    """num_nextn_predict_layers 1 and the layer's tensors (model.layers.2.* of a 2-layer model),
    as DeepSeek-V3's hub checkpoint ships it: loaded without it, said once."""
    tensors = tiny_weights()
    mtp = {k.replace("model.layers.1.", "model.layers.2."): v for k, v in tensors.items() if k.startswith("model.layers.1.")}
    mtp.update({"model.layers.2.eh_proj.weight": np.zeros((64, 128), np.float32),
                "model.layers.2.enorm.weight": np.ones(64, np.float32)})
    path = write_tiny(tmp_path / "ckpt", config=dict(num_nextn_predict_layers=1), tensors={**tensors, **mtp})
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lm = deepseek.CausalLM.from_pretrained(path, target="cpu")
    notes = [str(w.message) for w in caught if issubclass(w.category, checkpoint.CheckpointNote)]
    assert notes == [f"{path}: num_nextn_predict_layers 1: the multi-token-prediction layer 2 ({len(mtp)} tensors) "
                     f"is skipped: tokens come from the main model alone (no speculative decoding)"], notes
    assert lm.notes == notes
    # a layer past the model that is not an MTP layer is refused, not skipped
    path = write_tiny(tmp_path / "other", config=dict(num_nextn_predict_layers=0), tensors={**tensors, **mtp})
    with pytest.raises(ascend_mla.CompileError, match=r"model\.layers\.2\..* would be ignored.*\[CKPT-UNUSED\]"):
        deepseek.CausalLM.from_pretrained(path, target="cpu")


def test_positions_default_to_the_config_and_the_api_and_cli_refuse_alike(tiny, tiny_lm, capsys):
    """max_positions defaults to max_position_embeddings (256 here, not a fixed 4096); a
    generation past it is refused by generate() and by `ascend-mla generate` with one message."""
    from ascend_mla.tools import ascend_mla_cli
    assert tiny_lm.max_positions == TINY["max_position_embeddings"] and tiny_lm.notes == []
    message = "max_new_tokens: prompt 4 + 254 new tokens exceed max_positions 256"
    with pytest.raises(ValueError, match=re.escape(message)):
        tiny_lm.generate([[0, 5, 7, 9]], max_new_tokens=254)
    assert ascend_mla_cli.main(["generate", tiny, "--prompt-ids", "0,5,7,9", "--max-new-tokens", "254"]) == 2
    assert capsys.readouterr().err.strip() == f"ascend-mla: error: {message}"
    long = [list(range(2, 62)) * 4 + [5] * 10]                                        # 250 tokens
    assert tiny_lm.generate(long, max_new_tokens=7, eos_token_id=None).shape == (1, 257)   # the most that fits
    with pytest.raises(ValueError, match="prompt 250 \\+ 8 new tokens exceed max_positions 256"):
        tiny_lm.generate(long, max_new_tokens=8)
    with pytest.raises(ValueError, match=r"max_positions: expected an integer in \[1, 256\] \(the config's "
                                         r"max_position_embeddings\), got 300"):
        deepseek.CausalLM.from_pretrained(tiny, max_positions=300, target="cpu")


def test_a_longer_prompt_after_a_short_one_is_re_planned(tiny, monkeypatch):
    """The first call fixed the prefill chunk and a later 150-token prompt ran chunk by chunk
    (6x longer, unsaid). Now each prompt runs in one call of the smallest bucket that holds it,
    compiled at its first use, whatever came before (test_causal_lm.py holds the buckets' logits
    to transformers')."""
    lm = deepseek.CausalLM.from_pretrained(tiny, target="cpu")
    calls = []
    run = type(lm)._run
    monkeypatch.setattr(type(lm), "_run", lambda self, seq, *a: calls.append(seq) or run(self, seq, *a))
    lm([[0, 5, 7, 9]])
    long = [[(7 * i) % 60 + 2 for i in range(150)]]
    lm.reset()
    calls.clear()
    logits = lm(long)
    assert len(calls) == 1 and 150 <= calls[0] <= 225, calls
    assert logits.shape == (1, 150, TINY["vocab_size"]) and np.isfinite(logits).all()


def test_positions_are_capped_by_memory_and_the_cap_is_said(tmp_path, monkeypatch):
    """A config of 65536 positions on a machine whose memory holds the caches of 1000: the
    default is capped (at whole 128-position blocks within CACHE_SHARE of it) and said; weights
    that do not fit are refused before the checkpoint is read."""
    from ascend_mla.models import config_keys
    from ascend_mla.models.config_keys import size_text
    path = write_tiny(tmp_path / "long", config=dict(max_position_embeddings=65536))
    c = checkpoint.read_config(path).build_config()
    per_position = config_keys.cache_bytes_per_position(c, 2)
    free = 2 * 1000 * per_position
    assert config_keys.estimated_bytes(c, 2) < free
    monkeypatch.setattr(config_keys, "available_memory", lambda: free)
    lm = deepseek.CausalLM.from_pretrained(path, target="cpu")
    assert lm.max_positions == 896
    assert lm.notes == [f"max_positions: 896 (the config's max_position_embeddings 65536 would need "
                        f"{size_text(65536 * per_position)} of caches; {size_text(free)} are "
                        f"available): pass max_positions= to choose"]
    with pytest.raises(ValueError, match=r"max_positions: 60000 positions x batch 1 need 11\.0 MiB of caches, 375\.0 KiB of memory"):
        deepseek.CausalLM.from_pretrained(path, max_positions=60000, target="cpu")
    monkeypatch.setattr(config_keys, "available_memory", lambda: 1000)
    with pytest.raises(ascend_mla.CompileError, match=r"the weights of 2 layers need about 103\.9 KiB \(bf16\), 1000 B "
                                                      r"of memory are available.*\[CKPT-MEMORY\]"):
        deepseek.CausalLM.from_pretrained(path, target="cpu")


def test_four_threads_on_one_causal_lm_give_the_sequential_tokens(tiny_lm):
    """One CausalLM called from 4 threads gave 12 of 12 wrong token sequences: its calls now
    run one at a time, and a generate() holds the model for the whole generation."""
    prompts = [[[0, 5, 7, 9]], [[3, 1, 4]], [[2, 7, 1, 8, 2, 8]], [[9]]]
    sequential = [tiny_lm.generate(p, max_new_tokens=5, eos_token_id=None) for p in prompts]
    results = {}
    barrier = threading.Barrier(4)

    def run(i):
        barrier.wait()
        results[i] = [tiny_lm.generate(prompts[i], max_new_tokens=5, eos_token_id=None) for _ in range(3)]
    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for i in range(4):
        for tokens in results[i]:
            np.testing.assert_array_equal(tokens, sequential[i])


def test_ascend_mla_generate_on_a_hostile_checkpoint_is_one_line(tmp_path, capsys):
    """The campaign's first finding through the CLI: an index naming ../outside/model.safetensors
    loaded that file's tensors and exited 0. Now: exit 2, one line, nothing outside opened."""
    from ascend_mla.tools import ascend_mla_cli
    path = write_tiny(tmp_path / "ckpt", shards=2)
    _outside(tmp_path)
    index = json.loads((tmp_path / "ckpt" / "model.safetensors.index.json").read_text())
    index["weight_map"]["model.norm.weight"] = "../outside/model.safetensors"
    (tmp_path / "ckpt" / "model.safetensors.index.json").write_text(json.dumps(index))
    status = _opened_during(lambda: ascend_mla_cli.main(["generate", path, "--max-new-tokens", "2"]))
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1, err
    assert err[0] == (f"ascend-mla: error: {path}/model.safetensors.index.json: shard '../outside/model.safetensors' "
                      f"points outside the checkpoint directory {path} (an absolute path or '..') [CKPT-PATH]")
    assert not [p for p in OPENED if "outside" in p], OPENED


def test_a_tokenizer_that_is_a_fifo_or_a_link_out_is_refused(tmp_path, capsys):
    """`ascend-mla generate --prompt` reads tokenizer.json as it reads every file of a checkpoint."""
    from ascend_mla.tools import ascend_mla_cli
    path = write_tiny(tmp_path / "ckpt")
    for make, words in [(lambda p: os.mkfifo(p), "not a regular file (a FIFO): refused [CKPT-PATH]"),
                        (lambda p: p.symlink_to("/etc/passwd"), "is a link to /etc/passwd, outside the checkpoint "
                                                               "directory [CKPT-PATH]")]:
        tokenizer = tmp_path / "ckpt" / "tokenizer.json"
        if os.path.lexists(tokenizer):
            tokenizer.unlink()
        make(tokenizer)
        assert ascend_mla_cli.main(["generate", path, "--prompt", "hello", "--max-new-tokens", "1"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("ascend-mla: error: ") and words in err[0], err
