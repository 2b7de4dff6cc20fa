"""`ascend-mla generate` on checkpoints written by transformers: the last stdout line is
transformers' own greedy continuation (checked where its top-2 margin is clear), --prompt goes
through the checkpoint's tokenizer.json, and every bad value or refused checkpoint is one line
on stderr with exit status 2."""
import json
import os
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from ascend_mla.tools import ascend_mla_cli  # noqa: E402


def generate(capsys, *argv):
    code = ascend_mla_cli.main(["generate", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def clear_prompt(fp32_model, bf16_model, new, length=5, vocab=512):
    """A prompt whose greedy continuation is unambiguous, and that continuation: transformers'
    fp32 greedy tokens, where at every step the top-1 logit leads the top-2 by more than twice
    transformers' own bf16-vs-fp32 logit difference on the same sequence (a random model has
    near-ties, where any bf16 rounding may pick either). Tries seeded random prompts in turn."""
    for seed in range(50):
        prompt = np.random.default_rng(seed).integers(2, vocab, length).tolist()
        with torch.no_grad():
            ids = torch.tensor([prompt])
            sequence = fp32_model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=new,
                                           min_new_tokens=new, do_sample=False, pad_token_id=0)
            exact = fp32_model(sequence).logits[0, length - 1:-1].float()
            rounded = bf16_model(sequence).logits[0, length - 1:-1].float()
        noise = float((exact - rounded).abs().max())
        margin = float(torch.topk(exact, 2).values.diff(dim=-1).abs().min())
        if margin > 2 * noise:
            return prompt, sequence[0, length:].tolist()
    raise AssertionError("no prompt with clear greedy margins")


def test_generate_gives_transformers_greedy_tokens(capsys, hf_checkpoint, hf_model):
    path, fp32 = hf_checkpoint("bf16"), hf_checkpoint("fp32")
    capsys.readouterr()                            # the fixture's own progress output
    prompt, expected = clear_prompt(hf_model(fp32, "float32"), hf_model(path), 6)
    capsys.readouterr()
    code, lines, err = generate(capsys, path, "--prompt-ids", ",".join(map(str, prompt)), "--max-new-tokens", 6,
                                "--batch", 2, "--target", "cpu", "--report")
    assert code == 0 and err == ""                 # no progress bar off a TTY
    assert lines[-1] == " ".join(map(str, expected * 2))
    assert lines[0].startswith("ascend-mla generate: bf16 (deepseek_v3, 2 layers, 8 heads, vocab 512), bf16")
    assert any(line.startswith("prefill: 5 tokens x 2 rows in") and "tokens/s" in line for line in lines)
    assert any(line.startswith("decode: 5 steps x 2 rows in") and "tokens/s" in line for line in lines)
    assert "refused (0):" in lines and sum("mla.prolog_v2" in line for line in lines) == 4   # 2 programs x 2 layers


def write_tokenizer(directory, vocab_size=512):
    """A word-level tokenizer.json: "<s>" (BOS 0), "</s>" (EOS 1), then words w2 ... w511."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    vocab = {"<s>": 0, "</s>": 1, **{f"w{i}": i for i in range(2, vocab_size)}}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="</s>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.add_special_tokens(["<s>", "</s>"])
    tokenizer.save(os.path.join(directory, "tokenizer.json"))


def test_generate_with_a_prompt_uses_the_checkpoints_tokenizer(capsys, hf_checkpoint, hf_model, tmp_path):
    path = str(tmp_path / "with-tokenizer")
    shutil.copytree(hf_checkpoint("bf16"), path)
    write_tokenizer(path)
    capsys.readouterr()
    prompt, expected = clear_prompt(hf_model(hf_checkpoint("fp32"), "float32"), hf_model(hf_checkpoint("bf16")), 3)
    text = " ".join(f"w{t}" for t in prompt)
    capsys.readouterr()
    code, lines, err = generate(capsys, path, "--prompt", text, "--max-new-tokens", 3)
    assert code == 0, err
    assert lines[-1] == " ".join(map(str, expected))
    assert lines[-2] == text + " " + " ".join(f"w{t}" for t in expected)


def test_generate_stops_at_the_checkpoints_end_of_sequence_token(capsys, hf_checkpoint, hf_model, tmp_path):
    """The EOS id comes from generation_config.json (as transformers reads it): declared to be
    the third greedy token, the output ends there; --ignore-eos runs all the tokens."""
    prompt, expected = clear_prompt(hf_model(hf_checkpoint("fp32"), "float32"), hf_model(hf_checkpoint("bf16")), 5)
    eos = expected[2]
    path = str(tmp_path / "with-eos")
    shutil.copytree(hf_checkpoint("bf16"), path)
    with open(os.path.join(path, "generation_config.json"), "w") as f:
        json.dump({"eos_token_id": [eos], "pad_token_id": 0}, f)
    capsys.readouterr()
    ids = ",".join(map(str, prompt))
    code, lines, err = generate(capsys, path, "--prompt-ids", ids, "--max-new-tokens", 5, "--target", "cpu")
    assert code == 0, err
    assert lines[-1] == " ".join(map(str, expected[:expected.index(eos) + 1]))
    assert any(line.startswith(f"decode: {expected.index(eos)} steps x 1 row") for line in lines), lines
    code, lines, err = generate(capsys, path, "--prompt-ids", ids, "--max-new-tokens", 5, "--target", "cpu",
                                "--ignore-eos")
    assert code == 0 and lines[-1] == " ".join(map(str, expected)), err


def test_generate_refuses_in_one_line(capsys, hf_checkpoint, tmp_path):
    path = hf_checkpoint("bf16")
    capsys.readouterr()
    biased = tmp_path / "biased"
    biased.mkdir()
    with open(os.path.join(path, "config.json")) as f:
        config = json.load(f)
    with open(biased / "config.json", "w") as f:
        json.dump(dict(config, attention_bias=True), f)
    far_bos = tmp_path / "far-bos"      # a BOS id outside the vocabulary is refused where it is used
    shutil.copytree(path, far_bos)
    with open(far_bos / "config.json", "w") as f:
        json.dump(dict(config, bos_token_id=600), f)
    for argv, words in [
        ((far_bos, ), "config.json bos_token_id (the default prompt): token id 600 is outside the vocabulary"),
        ((path, "--prompt", "hello"), "has no tokenizer.json; give the prompt as --prompt-ids"),
        ((path, "--prompt-ids", "3,512"), "--prompt-ids: token id 512 is outside the vocabulary (size 512)"),
        ((path, "--prompt-ids", "1,-2"), "argument --prompt-ids: expected one or more token ids >= 0"),
        ((path, "--max-new-tokens", "-1"), "argument --max-new-tokens: expected an integer >= 0"),
        ((path, "--prompt-ids", "1", "--prompt", "x"), "not allowed with argument"),
        ((tmp_path / "nothing", ), "CHECKPOINT: " + str(tmp_path / "nothing") + " is not a directory"),
        ((biased, ), "attention_bias: true: the compiled attention and MLP have no bias terms"),
        ((tmp_path, ), "no config.json"),
    ]:
        code, lines, err = generate(capsys, *argv)
        assert code == 2 and lines == [], (argv, lines)
        assert len(err.splitlines()) == 1 and err.startswith("ascend-mla: error: ") and words in err, (argv, err)


@pytest.mark.slow
def test_generate_w8a8_from_an_fp8_checkpoint(capsys, hf_checkpoint):
    path = hf_checkpoint("fp8")
    capsys.readouterr()
    code, lines, err = generate(capsys, path, "--prompt-ids", "5,6,7", "--max-new-tokens", 4,
                                "--quant", "w8a8", "--cache-mode", "PA_NZ")
    assert code == 0, err
    assert len(lines[-1].split()) == 4 and all(0 <= int(t) < 512 for t in lines[-1].split())
    assert "w8a8, PA_NZ caches" in lines[0]
