"""Tensor parallelism on the CPU backend: two ranks on gloo give the attention block of one.

Two processes (tp_worker.py) started as torchrun starts its workers (RANK, WORLD_SIZE,
MASTER_ADDR, MASTER_PORT), each with its own heads' slice of the same weights, all-reduce
o_proj's partial sums through torch.distributed (gloo). Bounded in time: the process group
times out after 60 s, the test waits 180 s at most and kills what is left.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).parent))
import ranks  # noqa: E402
import tp_worker  # noqa: E402

import ascend_mla  # noqa: E402
from ascend_mla.models import deepseek  # noqa: E402
from ascend_mla.runtime.distributed import CollectiveError  # noqa: E402

WORKER = Path(__file__).with_name("tp_worker.py")
DEADLINE_S = ranks.DEADLINE_S


def launch(tmp_path, mode, world=2, port=None, **extra):
    """Start `world` ranks of tp_worker.py (`extra`: more environment); return [(returncode,
    stderr)] in rank order."""
    return ranks.launch(WORKER, tmp_path, mode, world, env=extra, port=port)


def test_two_ranks_on_gloo_give_the_block_of_one(tmp_path):
    results = launch(tmp_path, "ok")
    assert [r for r, _ in results] == [0, 0], results
    got = np.load(tmp_path / "rank0.npz")
    tp2 = got["outs"]
    assert "HcclAllReduce" in str(got["report"]) and "rank 0 of 2 (gloo)" in str(got["report"])

    weights = tp_worker.full_weights()
    _, tp1 = tp_worker.run(deepseek.build(**tp_worker.MODEL, weights=weights))
    # rank 0's slice alone (a world of one: the all-reduce is the identity) is far from it
    _, alone = tp_worker.run(deepseek.build(**tp_worker.MODEL, tp=2, rank=0, weights=weights))
    hidden = np.stack([np.asarray(deepseek.build(**tp_worker.MODEL).inputs(s)["hidden_states"]).astype(np.float32)
                       for s in range(tp_worker.STEPS)])
    attention = np.abs(tp1 - hidden).max()
    # The reduction-order bound. tp 1 rounds o_proj's full float32 sum to bf16 once; tp 2
    # rounds each rank's partial sum to bf16, then their float32 sum to bf16: three roundings
    # of values no larger than the block's attention output, each <= 2^-9 of it, against one
    # (<= 2^-7 * max|out| in all). Both then round h + out to bf16: one ulp of y each (<= 2^-8 |y|).
    # The heads' own work (projections, attention) is the same arithmetic on both sides.
    bound = 2.0 ** -8 * np.abs(tp1) + 2.0 ** -7 * attention
    assert np.all(np.abs(tp2 - tp1) <= bound), np.abs(tp2 - tp1).max()
    assert np.abs(alone - tp1).max() > 0.1 * attention        # the collective did the work
    # all_gather, along HCCL's rank-major axis and along another one
    np.testing.assert_array_equal(got["by_rows"], np.repeat([0.0, 1.0], 2)[:, None] * np.ones((4, 3)))
    np.testing.assert_array_equal(got["by_columns"], np.repeat([0.0, 1.0], 3)[None, :] * np.ones((2, 6)))


@pytest.mark.parametrize("mode", ["bad_shard", pytest.param("die", marks=pytest.mark.slow)])
def test_a_failing_rank_ends_every_rank_with_one_error(tmp_path, mode):
    (code0, err0), (code1, err1) = launch(tmp_path, mode)
    assert code0 == 1 and code1 != 0, (err0, err1)
    # the survivor: one line naming the collective and the cause, no traceback
    assert err0.count("\n") == 1 and "rank 0: error: CollectiveError: mla.all_reduce over 2 ranks failed on rank 0: " \
        "a peer rank ended or timed out" in err0, err0
    if mode == "bad_shard":
        assert "rank 1: error: CompileError" in err1 and "o_proj" in err1, err1


def test_two_ranks_give_the_whole_decoders_logits(tmp_path):
    """Embedding (vocabulary rows), attention (heads), dense MLP and MoE experts (intermediate
    slices), lm_head (vocabulary rows, all-gathered): tp 2's logits against tp 1's."""
    results = launch(tmp_path, "decoder")
    assert [r for r, _ in results] == [0, 0], results
    got = np.load(tmp_path / "rank0.npz")
    report = str(got["report"])
    assert report.count("HcclAllReduce") == 5 and report.count("HcclAllGather") == 1, report
    tp2 = got["logits"]
    _, tp1 = tp_worker.run_decoder()
    scale = np.abs(tp1).max()
    # The bound: per layer each row-parallel sum rounds three times (the rank's partial, the
    # sum, the residual add) where tp 1 rounds once or twice, each rounding <= 2^-9 relative,
    # and these perturbations travel through two layers as any bf16 rounding does; the
    # project's tolerance for one bf16 program against another with other rounding points is
    # 2^-5 of the largest value (test_deepseek_models.py). The embedding and the gathered
    # logits are exact.
    error = np.abs(tp2 - tp1).max()
    assert error <= 2.0 ** -5 * scale, (error, scale)
    top2 = np.sort(tp1, axis=-1)[..., -2:]
    clear = (top2[..., 1] - top2[..., 0]) > 2 * error      # rows whose greedy choice noise cannot flip
    assert clear.mean() > 0.5
    assert np.array_equal(tp2.argmax(-1)[clear], tp1.argmax(-1)[clear])


@pytest.mark.slow         # 15 s of CPU; the families' tp slices are built and fused in test_families.py
def test_two_ranks_give_longcat_flashs_logits(tmp_path):
    """LongCat-Flash's layout (families.py) over two ranks: both attention blocks of a layer by
    heads, both dense MLPs and the routed experts by intermediate slices, the identity experts
    whole on every rank (added after the ranks' sum): tp 2's logits against tp 1's, within the
    bound of the test above."""
    results = launch(tmp_path, "decoder_longcat")
    assert [r for r, _ in results] == [0, 0], results
    got = np.load(tmp_path / "rank0.npz")
    # the embedding, then per layer two o_proj, two MLPs and the MoE; lm_head gathered
    assert str(got["report"]).count("HcclAllReduce") == 1 + 2 * 5 and str(got["report"]).count("HcclAllGather") == 1
    _, tp1 = tp_worker.run_decoder(decoder=tp_worker.longcat_decoder())
    error, scale = np.abs(got["logits"] - tp1).max(), np.abs(tp1).max()
    assert error <= 2.0 ** -5 * scale, (error, scale)


@pytest.mark.slow
def test_two_ranks_of_a_w8a8_decoder(tmp_path):
    """w8a8 (int8 attention, MLPs and experts) over 2 ranks against tp 1. Each rank slices the
    int8 weights and their scales (models/sharding.py) and quantizes its own part of each
    activation per token: the down projections' inputs are the rank's half of the intermediate
    rows, so their scales differ from tp 1's (a different rounding of the same values, as a
    serving stack's ranks do). The difference is therefore of the size of w8a8's own rounding,
    never more: bounded by tp 1's w8a8-vs-bf16 distance (measured 0.6x of it), and the greedy
    tokens agree where their margin is clear of it."""
    results = launch(tmp_path, "decoder_w8a8")
    assert [r for r, _ in results] == [0, 0], results
    got = np.load(tmp_path / "rank0.npz")
    assert str(got["report"]).count("HcclAllReduce") == 5
    tp2 = got["logits"]
    _, tp1 = tp_worker.run_decoder(quant="w8a8")
    _, bf16 = tp_worker.run_decoder()
    error, quantization = np.abs(tp2 - tp1).max(), np.abs(tp1 - bf16).max()
    assert 0 < error < quantization, (error, quantization)
    top2 = np.sort(tp1, axis=-1)[..., -2:]
    clear = (top2[..., 1] - top2[..., 0]) > 2 * error
    assert np.array_equal(tp2.argmax(-1)[clear], tp1.argmax(-1)[clear])


# --- faults: every rank ends with one line, within the documented time --------------------------------

@pytest.fixture(scope="module")
def tiny_pair(tmp_path_factory):
    """Two tiny checkpoints of one architecture, different weights (tiny_checkpoints.py)."""
    from tiny_checkpoints import write_tiny
    root = tmp_path_factory.mktemp("tp-tiny")
    return write_tiny(root / "a", seed=0), write_tiny(root / "b", seed=1)


def _one_line_each(results, words):
    for rank, (code, err) in enumerate(results):
        assert code == 1, (rank, results)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"rank {rank}: error: CollectiveError: "), (rank, err)
        assert words in lines[0], (rank, lines[0])


DISAGREE = [("lm_batch", "the 2 ranks disagree on the arguments and checkpoint before the first collective: "
                         "arguments.batch: rank 0 has 1, rank 1 has 2"),
            ("lm_checkpoint", "disagree on the arguments and checkpoint before the first collective: checkpoint: "
                              "rank 0 has"),
            pytest.param("lm_prompt", "disagree on the arguments of generate before the first collective: ids: ",
                         marks=pytest.mark.slow)]


@pytest.mark.parametrize("mode,words", DISAGREE)
def test_ranks_that_disagree_end_with_one_error_on_every_rank(tmp_path, tiny_pair, mode, words):
    """A batch that differs between ranks killed rank 0 with SIGABRT inside gloo; ranks given
    different checkpoints both exited 0 with mixed tokens. Now the ranks compare their
    arguments and a fingerprint of the checkpoint before the first collective that depends on
    them: one error on every rank, naming what differs."""
    results = launch(tmp_path, mode, TP_CHECKPOINT=tiny_pair[0], TP_CHECKPOINT_1=tiny_pair[1])
    _one_line_each(results, words)


def test_a_master_port_held_by_a_silent_listener_ends_every_rank_in_time(tmp_path):
    """MASTER_PORT held by a program that accepts connections and never answers: rank 0 cannot
    serve the store there (address in use), rank 1's store client would wait forever (torch's
    timeout does not apply to it): both end within TP_TIMEOUT (+5 s), saying why."""
    import time
    start = time.monotonic()
    with tp_worker.silent_listener() as port:
        results = launch(tmp_path, "ok", port=port, TP_TIMEOUT="10")
    assert time.monotonic() - start < DEADLINE_S
    (code0, err0), (code1, err1) = results
    assert code0 == 1 and "rank 0 of 2: joining the process group (gloo) at 127.0.0.1:" in err0 \
        and "address already in use" in err0 and err0.count("\n") == 1, err0
    assert code1 == 1 and err1.count("\n") == 1 and "rank 1 of 2: joining the process group (gloo) at 127.0.0.1:" \
        in err1 and "did not complete in 10 s: no answer from the rank-0 store" in err1, err1


def test_a_world_of_one_runs_the_collective_as_the_identity():
    m = deepseek.build("deepseek-v2-lite", tp=2, layers=1, batch=1, block_size=16)
    program = ascend_mla.compile(m)
    assert '"mla.all_reduce"' in program.ir and "aclnn.hccl_all_reduce" in program.lowered_ir
    assert [c["op"] for c in program.report()["collectives"]] == ["HcclAllReduce"]
    assert "over 2 ranks of group 'tp'; here a world of one: the identity" in str(program.report())
    alone = ascend_mla.compile(REDUCE)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(alone(x=x)[0], x)


REDUCE = """
func.func @f(%x: tensor<2x3xf32> {mla.name = "x"}) -> tensor<2x3xf32> {
  %y = "mla.all_reduce"(%x) {world_size = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}"""


def test_an_all_gather_over_several_ranks_is_refused_in_a_world_of_one():
    program = ascend_mla.compile("""
func.func @f(%x: tensor<2x3xf32> {mla.name = "x"}) -> tensor<2x6xf32> {
  %y = "mla.all_gather"(%x) {world_size = 2 : i64, dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}""")
    with pytest.raises(CollectiveError, match=r"mla.all_gather over 2 ranks in a world of one"):
        program(x=np.ones((2, 3), np.float32))


def test_what_each_rank_holds():
    """The sharding table: column-parallel rows, row-parallel columns, the stacked experts'
    gate and up halves, the vocabulary's rows; the rest replicated; uneven splits refused."""
    from ascend_mla.models.sharding import ShardError, take
    full = np.arange(8 * 4).reshape(8, 4)
    np.testing.assert_array_equal(take("model.layers.0.self_attn.q_b_proj.weight", full, 2, 1), full[4:])
    np.testing.assert_array_equal(take("model.layers.0.self_attn.o_proj.weight", full, 2, 1), full[:, 2:])
    np.testing.assert_array_equal(take("model.layers.3.mlp.experts.7.up_proj.weight", full, 4, 2), full[4:6])
    np.testing.assert_array_equal(take("lm_head.weight", full, 2, 0), full[:4])
    np.testing.assert_array_equal(take("model.layers.0.self_attn.o_proj.weight_scale", full, 2, 1), full)
    np.testing.assert_array_equal(take("model.layers.0.mlp.gate.weight", full, 2, 1), full)
    stacked = np.arange(2 * 8 * 3).reshape(2, 8, 3)            # (E, 2I, He), I = 4
    np.testing.assert_array_equal(take("model.layers.1.mlp.experts.gate_up_proj", stacked, 2, 1),
                                  np.concatenate([stacked[:, 2:4], stacked[:, 6:8]], axis=1))
    down = np.arange(2 * 3 * 4).reshape(2, 3, 4)                # (E, He, I)
    np.testing.assert_array_equal(take("model.layers.1.mlp.experts.down_proj", down, 2, 0), down[:, :, :2])
    with pytest.raises(ShardError, match=r"tp: 3 does not divide model.layers.0.self_attn.q_b_proj.weight's rows \(8\)"):
        take("model.layers.0.self_attn.q_b_proj.weight", full, 3, 0)


def _generate(argv, *, torchrun=False):
    """ascend-mla generate ... (under torchrun with 2 ranks when asked); (status, stdout, stderr)."""
    bin_dir = Path(sys.executable).parent
    command = [str(bin_dir / "ascend-mla"), "generate", *argv]
    if torchrun:
        command = [str(bin_dir / "torchrun"), "--standalone", "--nproc-per-node", "2", "--no-python", *command]
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=DEADLINE_S * 2, env=env)
    return done.returncode, done.stdout, done.stderr


def test_generate_under_torchrun_prints_tp1s_tokens(hf_checkpoint):
    """`torchrun --standalone --nproc-per-node 2 --no-python ascend-mla generate CKPT --tp 2`:
    each rank reads its part of the checkpoint, rank 0 prints, the tokens are tp 1's."""
    path = hf_checkpoint("bf16")
    argv = [path, "--prompt-ids", "5,17,42", "--max-new-tokens", "4"]
    status, one, err = _generate(argv)
    assert status == 0, err
    status, two, err = _generate([*argv, "--tp", "2"], torchrun=True)
    assert status == 0, err
    assert two.count("ascend-mla generate:") == 1 and "(tp 2)" in two       # rank 0 alone prints
    assert two.strip().splitlines()[-1] == one.strip().splitlines()[-1]


def test_generate_with_tp_but_no_ranks_says_how_to_run_it(hf_checkpoint):
    status, _, err = _generate([hf_checkpoint("bf16"), "--max-new-tokens", "1", "--tp", "2"])
    assert status == 2 and err.strip().splitlines()[-1] == (
        "ascend-mla: error: tp: 2 ranks, but this process is one of 1: run it as one of 2 processes "
        "(torchrun --nproc-per-node 2 ...)"), err
