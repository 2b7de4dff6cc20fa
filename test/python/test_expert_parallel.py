"""Expert parallelism with data-parallel attention on the CPU backend: two ranks on gloo, each
with its own prompts, its own caches and half of the routed experts, give each rank's prompts
what one process gives them.

Two processes (ep_worker.py) started as torchrun starts its workers. Bounded in time as the
tensor-parallel tests are (ranks.py)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).parent))
import ep_worker  # noqa: E402
import ranks  # noqa: E402

from ascend_mla.models import deepseek  # noqa: E402

WORKER = Path(__file__).with_name("ep_worker.py")


def test_two_ranks_with_other_token_counts_give_each_rows_the_logits_of_one_process(tmp_path):
    """The small decoder at ep 2: rank 0 one token per row and call, rank 1 two (a decode step
    beside a prefill chunk: every exchange sized for the larger); each rank's logits against the
    same rows run by one process holding every expert."""
    results = ranks.launch(WORKER, tmp_path, "decoder")
    assert [r for r, _ in results] == [0, 0], results
    for rank in range(2):
        got = np.load(tmp_path / f"rank{rank}.npz")
        ep2 = got["logits"]
        _, one = ep_worker.run_decoder(rank)
        assert ep2.shape == one.shape == (2, 2, 1 + rank, 256)
        # The attention, the router and each expert's rows are the same arithmetic in both. The
        # combine rounds the weighted routed rows plus the shared expert to bf16 before the
        # residual add (two roundings, <= 2^-9 relative each), where one process's finalize
        # rounds routed + shared + residual once; such perturbations travel through two layers
        # as any bf16 rounding does: the project's tolerance for one bf16 program against another
        # with other rounding points is 2^-5 of the largest value (test_tensor_parallel.py).
        scale, error = np.abs(one).max(), np.abs(ep2 - one).max()
        assert error <= 2.0 ** -5 * scale, (rank, error, scale)
        top2 = np.sort(one, axis=-1)[..., -2:]
        clear = (top2[..., 1] - top2[..., 0]) > 2 * error
        assert clear.mean() > 0.5 and np.array_equal(ep2.argmax(-1)[clear], one.argmax(-1)[clear])
        assert f"rank {rank} of 2 (gloo)" in str(got["report"])


def test_generate_with_ep2_gives_each_ranks_prompts_the_tokens_of_one_process(tmp_path, hf_checkpoint):
    """CausalLM.from_pretrained(path, ep=2).generate(this rank's prompt) on each rank, twice:
    prompts of the same length, then 3 and 5 prompt tokens with 3 and 6 new tokens (rank 0 runs
    idle steps while rank 1 finishes): the tokens one process gives each prompt. Each rank holds
    half of the routed experts' bytes."""
    path = hf_checkpoint()
    results = ranks.launch(WORKER, tmp_path, "generate", env={"EP_CHECKPOINT": path})
    assert [r for r, _ in results] == [0, 0], results
    one = deepseek.CausalLM.from_pretrained(path)
    experts = sum(v.nbytes for k, v in one.weights.items() if ".mlp.experts." in k)
    for rank in range(2):
        got = np.load(tmp_path / f"rank{rank}.npz")
        for g, (prompts, new) in enumerate(zip(ep_worker.PROMPTS, ep_worker.NEW_TOKENS)):
            want = one.generate(np.array(prompts[rank]), max_new_tokens=new[rank], eos_token_id=None)
            np.testing.assert_array_equal(got[f"tokens{g}"], want)
        assert got["expert_bytes"] * 2 == experts
        assert "aclnnMoeDistributeDispatchV2" in str(got["collectives"])


def test_what_each_ep_rank_holds():
    """The stacked experts' rows of the rank's experts (and their w8a8 scales); per-expert
    tensors of other ranks' experts are not read at all; everything else whole."""
    from ascend_mla.models.sharding import ShardError, holds, take
    stacked = np.arange(4 * 6 * 3).reshape(4, 6, 3)          # (E, 2I, He)
    np.testing.assert_array_equal(take("model.layers.1.mlp.experts.gate_up_proj", stacked, 1, 1, ep=2), stacked[2:])
    np.testing.assert_array_equal(take("model.layers.1.mlp.experts.down_proj_scale", stacked, 1, 0, ep=2),
                                  stacked[:2])
    for name in ("model.layers.0.self_attn.q_b_proj.weight", "lm_head.weight", "model.layers.1.mlp.gate.weight",
                 "model.layers.1.mlp.shared_experts.down_proj.weight"):
        assert take(name, stacked, 1, 1, ep=2) is stacked
    assert holds("model.layers.1.mlp.experts.5.up_proj.weight", 8, 2, 1)
    assert not holds("model.layers.1.mlp.experts.5.up_proj.weight", 8, 2, 0)
    with pytest.raises(ShardError, match=r"ep: 3 does not divide the 4 routed experts"):
        take("model.layers.1.mlp.experts.down_proj", stacked, 1, 0, ep=3)


def test_ep_and_tp_together_are_refused_with_a_reason():
    with pytest.raises(ValueError, match=r"tp 2 with ep 2: not built\. Expert parallelism runs attention "
                                         r"data-parallel"):
        deepseek.build("deepseek-v3", tp=2, ep=2, layers=1)


def test_ep_without_the_ranks_says_how_to_run_it(hf_checkpoint, monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    with pytest.raises(ValueError, match=r"ep: 2 ranks, but this process is one of 1: run it as one of 2 processes "
                                         r"\(torchrun --nproc-per-node 2 \.\.\.\)"):
        deepseek.CausalLM.from_pretrained(hf_checkpoint(), ep=2)


def test_an_ep_model_alone_runs_its_own_experts():
    """`deepseek.build(..., ep=2)` in a world of one is rank 0's program: its experts only (the
    report says so); the decoder's other weights are whole."""
    model = ep_worker.decoder(0, 2)
    specs = {k: v for k, v in model.weights.items() if ".mlp.experts." in k}
    assert {v.shape[0] for v in specs.values()} == {4}           # 4 of 8 experts
    assert model.weights["lm_head.weight"].shape == (256, 7168)


def test_run_with_ep_alone_is_rank_0_and_its_cpp_calls_the_exchange(tmp_path, capsys):
    """`ascend-mla run --ep 32` without torchrun: rank 0's program (2 of DeepSeek-V2-Lite's 64
    experts, all 16 heads), checked against the unfused program; the report and the C++ show the
    exchange."""
    from ascend_mla.tools.ascend_mla_cli import main
    cpp = tmp_path / "moe.cpp"
    status = main(["run", "--model", "deepseek-v2-lite", "--ep", "32", "--layers", "1", "--steps", "2", "--batch", "2",
                   "--emit-cpp", str(cpp)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "MLA attention + MoE, ep 32 (rank 0: 2 of 64 routed experts; attention data-parallel, 16 heads), " \
           "1 layer (1)" in out
    assert "aclnnMoeDistributeDispatchV2 at" in out and "here a world of one: rank 0's experts only" in out
    assert "no float64 reference of the MoE layers" in out and out.rstrip().endswith("ok") or "ok, with" in out
    code = cpp.read_text()
    for call in ("HcclGetCommName(", "HcclGetRankId(", "aclnnMoeDistributeDispatchV2GetWorkspaceSize(",
                 "aclnnMoeDistributeCombineV2GetWorkspaceSize("):
        assert call in code, call
    assert main(["run", "--tp", "2", "--ep", "2"]) == 2
    assert "--tp with --ep: not built" in capsys.readouterr().err


def test_generate_under_torchrun_with_ep_prints_one_process_tokens(hf_checkpoint):
    """`torchrun --nproc-per-node 2 ascend-mla generate CKPT --ep 2`: each rank its half of the
    experts and the same prompt; rank 0 prints the tokens one process prints."""
    from test_tensor_parallel import _generate
    path = hf_checkpoint("bf16")
    argv = [path, "--prompt-ids", "5,17,42", "--max-new-tokens", "4"]
    status, one, err = _generate(argv)
    assert status == 0, err
    status, two, err = _generate([*argv, "--ep", "2"], torchrun=True)
    assert status == 0, err
    assert two.count("ascend-mla generate:") == 1 and "ep 2: 4 of 8 routed experts per rank" in two
    assert two.strip().splitlines()[-1] == one.strip().splitlines()[-1]


@pytest.mark.parametrize("mode", ["bad_experts", pytest.param("die", marks=pytest.mark.slow)])
def test_a_failing_ep_rank_ends_every_rank_with_one_error(tmp_path, mode):
    """A rank that fails before the first exchange (its weights are wrong, or it dies) ends the
    other: its exchange fails when the peer's connection closes (or at the timeout), one line."""
    (code0, err0), (code1, err1) = ranks.launch(WORKER, tmp_path, mode)
    assert code0 == 1 and code1 != 0, (err0, err1)
    assert err0.count("\n") == 1 and "rank 0: error: CollectiveError: mla.moe_distribute_dispatch over 2 ranks " \
        "failed on rank 0: a peer rank ended or timed out" in err0, err0
    if mode == "bad_experts":
        assert "rank 1: error:" in err1 and "experts.down_proj" in err1, err1


@pytest.mark.parametrize("mode,words", [
    ("disagree_batch", "the 2 ranks disagree on the arguments and checkpoint before the first collective: "
                       "arguments.batch: rank 0 has 1, rank 1 has 2"),
    ("disagree_checkpoint", "disagree on the arguments and checkpoint before the first collective: checkpoint: "
                            "rank 0 has")])
def test_ep_ranks_that_disagree_end_with_one_error_on_every_rank(tmp_path, mode, words):
    """Ranks given another batch (their exchanges would be sized apart) or another checkpoint
    (each would compute with other weights): the agreement of from_pretrained before the first
    exchange, as under tp (runtime.distributed.agree), one error on every rank."""
    from tiny_checkpoints import write_tiny
    env = {"EP_CHECKPOINT": write_tiny(tmp_path / "a", seed=0), "EP_CHECKPOINT_1": write_tiny(tmp_path / "b", seed=1)}
    for rank, (code, err) in enumerate(ranks.launch(WORKER, tmp_path, mode, env=env)):
        lines = err.strip().splitlines()
        assert code == 1 and len(lines) == 1, (rank, err)
        assert lines[0].startswith(f"rank {rank}: error: CollectiveError: ") and words in lines[0], (rank, err)


def test_a_stalled_ep_rank_ends_the_other_at_the_timeout(tmp_path):
    """A rank alive but absent from the exchange (stuck elsewhere) ends the other at the job's
    timeout (TP_TIMEOUT, init_from_environment's timeout_s), with one error, not a hang."""
    (code0, err0), (code1, _) = ranks.launch(WORKER, tmp_path, "stall", env={"TP_TIMEOUT": "4"})
    assert code0 == 1 and code1 == 3, err0
    assert err0.count("\n") == 1 and "rank 0: error: CollectiveError: mla.moe_distribute_dispatch over 2 ranks " \
        "failed on rank 0: a peer rank ended or timed out" in err0, err0
    seconds = float((tmp_path / "rank0.seconds").read_text())      # its compile, then the 4 s timeout
    assert 4 <= seconds < 60, seconds


@pytest.mark.slow
def test_an_ep_rank_dying_mid_generation_ends_the_other(tmp_path, hf_checkpoint):
    """Rank 1 ends after two steps of a generation; rank 0, still generating, fails in its next
    step (the step agreement or the exchange) with one error."""
    (code0, err0), (code1, _) = ranks.launch(WORKER, tmp_path, "generate_die",
                                             env={"EP_CHECKPOINT": hf_checkpoint()})
    assert code0 == 1 and code1 == 3, err0
    assert err0.count("\n") == 1 and "rank 0: error: CollectiveError:" in err0 and \
        "over 2 ranks failed on rank 0: a peer rank ended or timed out" in err0, err0


@pytest.mark.slow
def test_two_ranks_of_a_w8a8_decoder(tmp_path):
    """w8a8 at ep 2: the rows travel in bf16 (quant_mode 0) and each rank's experts quantize them
    per row as one process does, so the only difference is the combine's rounding, as in bf16."""
    results = ranks.launch(WORKER, tmp_path, "decoder_w8a8")
    assert [r for r, _ in results] == [0, 0], results
    for rank in range(2):
        ep2 = np.load(tmp_path / f"rank{rank}.npz")["logits"]
        _, one = ep_worker.run_decoder(rank, quant="w8a8")
        assert np.abs(ep2 - one).max() <= 2.0 ** -5 * np.abs(one).max()
