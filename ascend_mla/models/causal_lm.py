"""`deepseek.CausalLM`: a Hugging Face DeepSeek checkpoint as compiled programs, tokens out (docs/api.md section 9).

    lm = deepseek.CausalLM.from_pretrained(path)
    tokens = lm.generate(input_ids, max_new_tokens=16)      # greedy, torch in -> torch out
    logits = lm(input_ids)                                  # one step from the current caches

One compiled module of the whole decoder (deepseek.build(decoder=True)): @decode (one token per
row) and one @prefill<S> per shape bucket S in use. A prompt of C tokens per row runs in one
call of the smallest bucket of PREFILL_BUCKETS (4, 8, 16, 24, 32, 48, 64, 96, ...: at most 1.5x C)
that holds it and fits the caches, whatever came before (one longer than any bucket that fits
runs bucket by bucket). A bucket not compiled yet re-plans: the module is compiled again with
it added (every function reads the same weight globals, so fold-constants packs each weight
once for all of them, and the previous program is dropped). The padded rows write no cache slot (slot -1, which
the scatter skips) and their logits are dropped, and the attention's causal mask (FIA sparse
mode 3, anchored at the kv length) keeps the real rows from seeing them. Every per-step
value (token ids, positions, cache slots, kv lengths) is a run-time input: a decode loop never
recompiles. The paged caches (one latent and one rope cache per layer) are the model's: one
set, written in place by both programs; the block table is the identity (row r owns blocks
[r * blocks_per_row, (r + 1) * blocks_per_row)).
"""
from __future__ import annotations

import os
import re
import threading
import warnings

import numpy as np

from .. import compile as compile_program
from ..compiler import CompileError, Report
from . import blocks
from .checkpoint import CheckpointNote

PREFILL_CHUNK = 128          # room past max_positions for a bucket's padding (the caches' capacity)
# The prefill programs' shapes (tokens per row): 4, 8, then 16 and 24 times the powers of two, so
# a prompt of 8 tokens or more pads by at most half; each is compiled at its first use and kept.
PREFILL_BUCKETS = tuple(sorted({4, 8} | {16 << i for i in range(17)} | {24 << i for i in range(17)}))
MAX_EP_TOKENS = 512          # with ep, the most tokens of one call (rows * bucket): Atlas A3's BS bound
CALIBRATION_TOKENS = 64      # w8a8c8: the default calibration prompt of the latent cache's scale
MOST_POSITIONS = (1 << 20) - 2 * PREFILL_CHUNK - 1024   # deepseek.build's cache bound, less a padded chunk
CACHE_SHARE = 0.5            # the default max_positions' caches take at most this share of free memory




def _as_numpy_ids(input_ids, batch):
    torch_in = type(input_ids).__module__.startswith("torch")
    ids = input_ids.detach().cpu().numpy() if torch_in else np.asarray(input_ids)
    if ids.ndim == 1:
        ids = ids[None]
    if ids.ndim != 2 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"input_ids: expected integer token ids (batch, tokens), got {ids.dtype} {ids.shape}")
    if ids.shape[0] != batch:
        raise ValueError(f"input_ids: the model was compiled for batch {batch} (from_pretrained(batch=...)), "
                         f"got {ids.shape[0]} rows")
    return ids.astype(np.int64), torch_in


def _in_vocabulary(ids: np.ndarray, mask, vocab_size: int) -> np.ndarray:
    """The ids with each real token checked against the vocabulary (ValueError naming the first
    outside it) and the padding's ids (mask 0: never attended, never cached) made 0."""
    real = np.ones(ids.shape, bool) if mask is None else mask
    bad = real & ((ids < 0) | (ids >= vocab_size))
    if bad.any():
        r, c = (int(i[0]) for i in np.nonzero(bad))
        raise ValueError(f"input_ids: token id {int(ids[r, c])} (row {r}, column {c}) is outside the vocabulary "
                         f"[0, {vocab_size})")
    return ids if mask is None else np.where(mask, ids, 0)


CHECKPOINT = object()        # generate()'s default: the checkpoint's generation tokens


def eos_ids(value, vocab_size: int) -> tuple:
    """End-of-sequence ids as a tuple: None or () for none, one id, or a list of ids."""
    if value is None:
        return ()
    ids = tuple(value) if isinstance(value, (list, tuple)) else (value,)
    for e in ids:
        if not isinstance(e, (int, np.integer)) or isinstance(e, bool) or not 0 <= e < vocab_size:
            raise ValueError(f"eos_token_id: expected token ids in [0, {vocab_size}) (or None), got {value!r}")
    return tuple(int(e) for e in ids)


class GreedyStop:
    """Greedy tokens with transformers' end-of-sequence rule: a row is finished once it has
    produced one of `eos`; a finished row's later tokens are `pad`; generation is done when every
    row is finished. With no EOS ids it is never done early."""

    def __init__(self, eos: tuple, pad: int, rows: int):
        self.eos, self.pad = np.asarray(eos, np.int64), pad
        self.finished = np.zeros(rows, bool)

    @property
    def done(self) -> bool:
        return bool(self.eos.size) and bool(self.finished.all())

    def next(self, logits) -> np.ndarray:
        """(rows, 1) int64 tokens from the last position's logits (rows, vocab). Non-finite logits
        of a row still generating raise FloatingPointError: argmax over NaN would pick token 0
        and the generation would go on silently wrong (finite weights can still overflow)."""
        logits = np.asarray(logits)
        bad = np.flatnonzero(~self.finished & ~np.isfinite(logits).all(-1))
        if bad.size:
            raise FloatingPointError(f"logits: row {int(bad[0])} holds NaN or Inf (the model's arithmetic "
                                     f"overflowed or its weights are not finite): no token is chosen from them")
        token = logits.argmax(-1).astype(np.int64)
        if self.eos.size:
            token = np.where(self.finished, self.pad, token)
            self.finished |= np.isin(token, self.eos)
        return token[:, None]


class CausalLM:
    """A compiled DeepSeek-family causal LM; see the module doc. Build with `from_pretrained`."""

    def __init__(self, config: dict, weights: dict, *, name: str, batch: int = 1, max_positions: int | None = None,
                 quant: str | None = None, cache_mode: str = "PA_BSND", block_size: int = 128, tp: int = 1,
                 layers: int | None = None, target: str = "auto", rope: str = "interleave", rank: int = 0,
                 sharded: bool = False, eos_token_id=(), pad_token_id: int | None = None, notes=(), ep: int = 1):
        total = config["num_hidden_layers"]
        layers = total if layers is None else layers
        if not isinstance(layers, int) or not 1 <= layers <= total:
            raise ValueError(f"layers: expected an integer in [1, {total}], got {layers!r}")
        if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
            raise ValueError(f"batch: expected an integer >= 1, got {batch!r}")
        self.notes = list(notes)
        max_positions = self._positions_for(config, batch, max_positions, quant, layers)
        scaling = config.get("rope_scaling") or {}
        if scaling.get("type") == "longrope" and max_positions > scaling["original_max_position_embeddings"]:
            raise ValueError(f"max_positions: {max_positions} passes LongRoPE's original context "
                             f"({scaling['original_max_position_embeddings']}), where transformers switches every "
                             f"position to the long factors; the compiled rotary tables hold the short ones")
        # Read-only constants: the kernels convert a weight once (gemm.converted) only when
        # nothing can change it; a writeable one would be converted again at every step.
        self.name, self.config, self.weights = name, config, {k: _frozen(v) for k, v in weights.items()}
        self.batch, self.max_positions, self.target = batch, max_positions, target
        if ep > 1 and batch > MAX_EP_TOKENS:
            raise ValueError(f"batch: at most {MAX_EP_TOKENS} rows per rank with ep (the tokens one MoE exchange "
                             f"takes, aclnnMoeDistributeDispatchV2 on Atlas A3), got {batch}")
        self.ep = ep
        self._build_args = dict(tp=tp, layers=layers, batch=batch, quant=quant or "bf16", cache_mode=cache_mode,
                                block_size=block_size, rope=rope, rank=rank, sharded=sharded, ep=ep)
        self.vocab_size = config["vocab_size"]
        # generate()'s defaults, as transformers' generation config gives them
        self.eos_token_id, self.pad_token_id = eos_ids(eos_token_id, self.vocab_size), pad_token_id
        # Room for one padded prefill chunk past the last real position (its rows write no slot,
        # but the kv length of the chunk's call counts them).
        self._capacity = block_size * -(-(max_positions + PREFILL_CHUNK) // block_size)
        self._program = None              # the compiled module, of @decode and @prefill<S> for S in:
        self._seqs = ()
        decode = self._model(1)           # builds the graph now: a bad config fails here
        self.block_table = np.arange(decode.block_table.size, dtype=np.int32).reshape(decode.block_table.shape)
        self._caches = decode.new_caches()
        self._positions = np.zeros(batch, np.int64)      # tokens each row's caches hold
        self._written = 0                                # cache positions written since the last reset
        # One caller at a time: a call reads and advances the caches and positions (one state
        # per model), and the first call compiles. Calls from several threads are serialised;
        # generate() holds the lock for the whole generation, so each gets the tokens it would
        # get alone. (Independent streams in parallel: one CausalLM per thread.)
        self._lock = threading.RLock()

    def _positions_for(self, config, batch, max_positions, quant, layers) -> int:
        """max_positions: the caller's, or the config's max_position_embeddings, capped so the
        caches take at most CACHE_SHARE of the memory available (said in a note); refused above
        the config's or when even the caller's do not fit."""
        from .config_keys import available_memory, cache_bytes_per_position, size_text
        trained = config.get("max_position_embeddings") or MOST_POSITIONS
        if max_positions is not None and (isinstance(max_positions, bool) or not isinstance(max_positions, int)
                                          or not 1 <= max_positions <= trained):
            raise ValueError(f"max_positions: expected an integer in [1, {trained}] (the config's "
                             f"max_position_embeddings), got {max_positions!r}")
        per_position = batch * cache_bytes_per_position(config, layers, quant)
        free = available_memory()
        budget = None if free is None else CACHE_SHARE * free     # the weights are loaded already
        if max_positions is not None:
            if budget is not None and max_positions * per_position > 2 * budget:
                raise ValueError(f"max_positions: {max_positions} positions x batch {batch} need "
                                 f"{size_text(max_positions * per_position)} of caches, {size_text(free)} of memory "
                                 f"are available")
            return max_positions
        positions = min(trained, MOST_POSITIONS)
        scaling = config.get("rope_scaling") or {}
        if scaling.get("type") == "longrope" and positions > scaling["original_max_position_embeddings"]:
            positions = scaling["original_max_position_embeddings"]     # the short factors' context (below)
            self.notes.append(f"max_positions: {positions}, LongRoPE's original context (past it transformers "
                              f"switches to the long factors, which the compiled tables do not hold)")
            trained = positions
        if budget is not None and positions * per_position > budget:
            fit = int(budget // per_position) // 128 * 128
            if fit < 128:
                raise ValueError(f"max_positions: even 128 positions x batch {batch} need "
                                 f"{size_text(128 * per_position)} of caches, {size_text(free)} of memory are available")
            self.notes.append(f"max_positions: {fit} (the config's max_position_embeddings {trained} would need "
                              f"{size_text(trained * per_position)} of caches; {size_text(free)} are available): "
                              f"pass max_positions= to choose")
            positions = fit
        elif positions < trained:
            self.notes.append(f"max_positions: {positions}, the most a cache holds here (the config's "
                              f"max_position_embeddings is {trained})")
        return positions

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_pretrained(cls, path, *, batch: int = 1, max_positions: int | None = None, quant: str | None = None,
                        cache_mode: str = "PA_BSND", block_size: int = 128, tp: int = 1, layers: int | None = None,
                        target: str = "auto", kv_scale=None, calibration=None,
                        allow_nonfinite: bool = False, ep: int = 1) -> "CausalLM":
        """Read a Hugging Face checkpoint directory (checkpoint.py: config formats, dtypes, FP8,
        shards, refusals) and compile its decode program (the prefill one on first use).

        quant="w8a8c8" only: the latent cache's static int8 scale per layer (int8 = round(kv *
        scale)). `kv_scale`: a number (every layer) or {layer index: number} (LongCat, two
        attention blocks per layer: by block, 2i and 2i + 1), e.g. a calibration tool's; None calibrates it here: the w8a8 model runs `calibration` (token ids (rows,
        tokens); default CALIBRATION_TOKENS seeded random ids) and each layer's scale is 127 over
        the largest |latent| it wrote (calibrated_kv_scales). Both are checked before the
        checkpoint is read.

        max_positions: the caches' positions per row; default the config's
        max_position_embeddings, capped by the memory available (said in a note).
        allow_nonfinite: load weights holding NaN or Inf (refused by default: CKPT-NONFINITE).
        What a user should know but is not an error (a multi-token-prediction layer skipped,
        config keys nobody reads, capped positions) is issued once as a CheckpointNote warning
        and kept in `lm.notes`.

        tp=N / ep=N: one of N ranks of the job torchrun started (docs/parallel.md). tp splits
        heads, MLPs, experts and the vocabulary; ep keeps the rank's routed experts only and runs
        attention data-parallel: each rank generates for its own prompts, and every call of the
        model (generate, __call__) is a step of all ranks together (each rank calls the same
        methods in the same order; a rank whose call needs fewer steps runs idle steps until the
        others are done). The ranks first agree on the arguments and the checkpoint (one
        CollectiveError on every rank if they differ)."""
        from . import checkpoint
        if quant != "w8a8c8" and (kv_scale is not None or calibration is not None):
            raise ValueError(f"kv_scale, calibration: only quant=\"w8a8c8\" has an int8 latent cache, got quant={quant!r}")
        config = checkpoint.read_config(path)
        total = config.num_hidden_layers
        if layers is not None and (not isinstance(layers, int) or not 1 <= layers <= total):
            raise ValueError(f"layers: expected an integer in [1, {total}], got {layers!r}")
        built = range(total if layers is None else layers)
        c = config.build_config()
        if quant == "w8a8c8":        # checked before the checkpoint is read
            scales = None if kv_scale is None else kv_scales_by_layer(kv_scale, list(_blocks_by_cache(config, built)))
            ids = calibration_ids(calibration, c["vocab_size"]) if scales is None else None
        rank = parallel_rank(tp, ep)
        experts = _held_experts(config, ep, rank)
        notes = list(config.notes)
        check_weight_memory(config, len(built), quant, path)
        index = checkpoint.tensor_index(path, config)
        if tp > 1 or ep > 1:    # before the first collective: the same call on the same checkpoint everywhere
            from ..runtime.distributed import agree
            agree({"arguments": dict(batch=batch, max_positions=max_positions, quant=quant, cache_mode=cache_mode,
                                     block_size=block_size, tp=tp, ep=ep, layers=layers, target=target,
                                     kv_scale=kv_scale, allow_nonfinite=allow_nonfinite,
                                     calibration=None if calibration is None else _digest(calibration_ids(
                                         calibration, config.vocab_size))),
                   "checkpoint": checkpoint.fingerprint(path, index)}, "arguments and checkpoint")
        names = checkpoint_names(config, built, index, experts)
        absent = {n for n in optional_names(config, built) if n not in index}       # transformers: zeros
        weights = checkpoint.load_tensors(path, config, names=names - absent,
                                          ignore=_ignored(config, len(built), ep, rank), quant=quant, tp=tp,
                                          rank=rank, ep=ep, allow_nonfinite=allow_nonfinite, notes=notes,
                                          index=index)
        weights = stack_experts(weights, config, built, experts)
        for n in absent:
            weights[n] = np.zeros(c["n_routed_experts"] + config.zero_experts, np.float32)
        name = os.path.basename(os.path.normpath(os.fspath(path)))
        eos, pad = checkpoint.generation_tokens(path)
        args = dict(name=name, cache_mode=cache_mode, block_size=block_size, tp=tp, layers=layers, target=target,
                    rope=config.rope, rank=rank, sharded=True, eos_token_id=eos, pad_token_id=pad, ep=ep)
        if quant == "w8a8c8":
            if scales is None:
                scales = calibrated_kv_scales(c, weights, ids, built, **args)
            weights = dict(weights)
            for i, scale in scales.items():
                weights[f"{_blocks_by_cache(config, built)[i].attention}kv_scale"] = np.full(
                    (1, c["kv_lora_rank"]), scale, np.float32)
        lm = cls(c, weights, batch=batch, max_positions=max_positions, quant=quant, notes=notes, **args)
        for note in lm.notes:
            warnings.warn(note, CheckpointNote, stacklevel=2)
        return lm

    def _model(self, seq: int):
        return blocks.build(self.name, config=self.config, weights=self.weights, seq=seq,
                            max_positions=self._capacity, decoder=True, max_tokens=self._exchange_tokens(seq),
                            **self._build_args)

    def _exchange_tokens(self, seq: int) -> int | None:
        """With ep, every MoE exchange of every function on every rank is sized alike: for
        batch * the largest prefill bucket ep allows (ep_bucket) tokens."""
        return self.batch * max(seq, self.ep_bucket) if self.ep > 1 else None

    @property
    def ep_bucket(self) -> int:
        """The largest prefill bucket with ep: at most PREFILL_CHUNK tokens per row and
        MAX_EP_TOKENS per call (a longer prompt runs bucket by bucket)."""
        most = min(PREFILL_CHUNK, MAX_EP_TOKENS // self.batch)
        return max(b for b in PREFILL_BUCKETS if b <= most) if most >= PREFILL_BUCKETS[0] else most

    def _compile(self, seq: int):
        """The module of @decode and of @prefill<S> for every bucket S used so far and `seq`
        (the previous program is dropped: its packed weights with it)."""
        seqs = tuple(sorted(set(self._seqs) | {1, seq}))
        built = [self._model(s) for s in seqs]
        module = built[0].build(function=_function_name(seqs[0]))
        for s, b in zip(seqs[1:], built[1:]):
            b.build(into=module, function=_function_name(s))      # the same weights' globals
        self._program = compile_program(module, weights=built[0].weights, target=self.target, source_name=self.name)
        self._seqs = seqs

    def _bucket(self, count: int) -> int:
        """The prefill shape for `count` tokens per row: the smallest bucket that holds them and
        fits the caches after every row's position, else the largest that fits (run in turn);
        with ep, at most ep_bucket."""
        room = self._capacity - int(self._positions.max())
        if self.ep > 1:
            room = min(room, self.ep_bucket)
        fitting = [b for b in PREFILL_BUCKETS if b <= room] or [PREFILL_BUCKETS[0]]
        return next((b for b in fitting if b >= count), fitting[-1])

    # -- the API --------------------------------------------------------------------------------
    @property
    def programs(self) -> dict:
        """The compiled programs: {"decoder": the Program of @decode and of @prefill<S> for
        each prefill bucket S used} (empty before the first call;
        `program.memory_plan(function="decode")` etc.)."""
        return {} if self._program is None else {"decoder": self._program}

    def report(self) -> Report:
        """The fused/refused/rewritten records of every compiled program (each record's
        location names its function's line in the IR)."""
        merged = Report(fused=[], refused=[], rewritten=[])
        for program in self.programs.values():
            r = program.report()
            for key in merged:
                merged[key] += list(r.get(key, ()))
        return merged

    def reset(self):
        """Empty caches, position 0 (only the blocks written are cleared: a cache sized for the
        config's positions is mostly never touched, and its pages stay unallocated)."""
        with self._lock:
            blocks = -(-self._written // self._build_args["block_size"])
            if blocks:
                rows = self.block_table[:, :blocks].reshape(-1)
                for cache in self._caches.values():
                    cache[rows] = 0
            self._positions[:] = 0
            self._written = 0

    @property
    def position(self) -> int:
        """How many tokens the caches hold: per row when rows are equal, else the longest row's."""
        return int(self._positions.max())

    @property
    def positions(self) -> np.ndarray:
        """How many tokens each row's caches hold, (batch,) int64."""
        return self._positions.copy()

    def __call__(self, input_ids, attention_mask=None):
        """Logits (batch, tokens, vocab) float32 of `input_ids` (batch, tokens) after the tokens the
        caches hold; each row's caches advance by its real tokens. `attention_mask` (batch,
        tokens) of 1 and 0, as transformers': a row's 0 entries are padding (its 1s contiguous:
        left or right padding), which takes no position and no cache slot and gets logits 0.
        torch in, torch out."""
        ids, torch_in = _as_numpy_ids(input_ids, self.batch)
        mask = _as_mask(attention_mask, ids.shape)
        ids = _in_vocabulary(ids, mask, self.vocab_size)
        with self._lock:
            self._agree("input_ids of a call", ids=_digest(ids), mask=None if mask is None else _digest(mask))
            logits = self._step(ids, mask)
            self._finish_together()
        if torch_in:
            import torch
            return torch.from_numpy(logits)
        return logits

    def generate(self, input_ids, max_new_tokens: int = 16, *, attention_mask=None, eos_token_id=CHECKPOINT,
                 pad_token_id=CHECKPOINT):
        """Greedy generation from empty caches: the prompt, then up to `max_new_tokens` tokens
        per row (argmax of each step's logits). As transformers' generate: a row that has
        produced an end-of-sequence token is finished, its later tokens are `pad_token_id`, and
        generation stops when every row is finished. Both default to the checkpoint's
        (generation_config.json, else config.json; the pad to the first EOS id when it has
        none); `eos_token_id=None` never stops early. Prompts of different lengths come padded
        with an `attention_mask`, as for transformers (left padding is its convention; right
        padding works too): each row starts at position 0 and continues from its own last prompt
        token. Returns (batch, prompt + new) int64, the prompt as given, new <= max_new_tokens;
        torch in, torch out."""
        if not isinstance(max_new_tokens, int) or max_new_tokens < 0:
            raise ValueError(f"max_new_tokens: expected an integer >= 0, got {max_new_tokens!r}")
        stop = self.stopping(eos_token_id, pad_token_id)
        ids, torch_in = _as_numpy_ids(input_ids, self.batch)
        mask = _as_mask(attention_mask, ids.shape)
        prompt, ids = ids, _in_vocabulary(ids, mask, self.vocab_size)
        real = np.full(self.batch, ids.shape[1]) if mask is None else mask.sum(1)
        if ids.shape[1] < 1 or real.min() < 1:
            raise ValueError("input_ids: expected at least one prompt token per row")
        self.check_length(int(real.max()), max_new_tokens)
        out = [prompt]                      # the prompt as given (its padding ids too)
        with self._lock:
            self._agree("arguments of generate", ids=_digest(ids), mask=None if mask is None else _digest(mask),
                        max_new_tokens=max_new_tokens, eos=stop.eos.tolist(), pad=stop.pad)
            self.reset()
            if max_new_tokens:
                logits = self._step(ids, mask)
                last = ids.shape[1] - 1 if mask is None else _last_real(mask)    # each row's last prompt token
                out.append(stop.next(logits[np.arange(self.batch), last]))
            while len(out) <= max_new_tokens and not stop.done:
                out.append(stop.next(self._step(out[-1])[:, -1]))
            self._finish_together()
        tokens = np.concatenate(out, axis=1)
        if torch_in:
            import torch
            return torch.from_numpy(tokens)
        return tokens

    def _agree(self, what: str, **description):
        """Tensor parallelism: every rank must make this call with the same arguments (else its
        collectives would mismatch): runtime.distributed.agree, one error on every rank."""
        if self._build_args["tp"] > 1:
            from ..runtime.distributed import agree
            agree(description, what)

    def check_length(self, prompt: int, max_new_tokens: int):
        """Refuse a generation that would not fit the caches (generate and `ascend-mla generate`
        ask the same: check_length)."""
        check_length(prompt, max_new_tokens, self.max_positions)

    def stopping(self, eos_token_id=CHECKPOINT, pad_token_id=CHECKPOINT) -> "GreedyStop":
        """The end-of-sequence rule of one generation (generate's arguments, checked)."""
        eos = self.eos_token_id if eos_token_id is CHECKPOINT else eos_ids(eos_token_id, self.vocab_size)
        pad = self.pad_token_id if pad_token_id is CHECKPOINT else pad_token_id
        if pad is None:
            pad = eos[0] if eos else 0
        if not isinstance(pad, (int, np.integer)) or isinstance(pad, bool) or not 0 <= pad < self.vocab_size:
            raise ValueError(f"pad_token_id: expected a token id in [0, {self.vocab_size}), got {pad!r}")
        return GreedyStop(eos, int(pad), self.batch)

    # -- one step ---------------------------------------------------------------------------------
    def _step(self, ids: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        batch, count = ids.shape
        real = np.full(batch, count, np.int64) if mask is None else mask.sum(1)
        over = np.flatnonzero(self._positions + real > self.max_positions)
        if over.size:
            r = int(over[0])
            raise ValueError(f"input_ids: {int(real[r])} tokens after {int(self._positions[r])} of row {r} exceed "
                             f"max_positions {self.max_positions} (reset() empties the caches)")
        order = None
        if mask is not None:            # each row's real tokens first (the run pads after them)
            order = np.argsort(~mask, axis=1, kind="stable")
            ids = np.take_along_axis(ids, order, axis=1)
        if count == 1:
            logits = self._run(1, ids, real)
        else:
            chunk, parts = self._bucket(count), []
            for start in range(0, count, chunk):
                n = min(chunk, count - start)
                padded = np.zeros((batch, chunk), np.int64)
                padded[:, :n] = ids[:, start:start + n]
                parts.append(self._run(chunk, padded, np.clip(real - start, 0, n))[:, :n])
            logits = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
        if order is None:
            return logits
        logits[np.arange(count)[None, :] >= real[:, None]] = 0           # padding: no logits
        out = np.empty_like(logits)
        np.put_along_axis(out, order[..., None], logits, axis=1)          # back to the caller's columns
        return out

    # -- expert parallelism: every program call is a step of all ranks ------------------------
    def _together(self, active: bool) -> bool:
        """One step of the EP ranks: whether any rank has work in it (each rank's MoE layers
        exchange tokens with every other rank's, so every rank runs a program in every step)."""
        from ..runtime.distributed import any_rank
        return any_rank(active, "the next step")

    def _finish_together(self):
        """After this rank's last step of a call: idle steps while another rank still has work
        (their exchanges need this rank's); returns when every rank is done."""
        if self.ep > 1:
            while self._together(False):
                self._idle()

    def _idle(self):
        """A step with no tokens of this rank: one decode call whose rows are padding (they write
        no cache slot and move no position; their logits are dropped). Its rows still travel
        through the exchange, as any rank's padding does: the documents ask every token of
        ranks with different token counts to be valid."""
        pad = self.pad_token_id if self.pad_token_id is not None else 0
        self._call(1, np.full((self.batch, 1), pad, np.int64), np.zeros(self.batch, np.int64))

    def _run(self, seq: int, ids: np.ndarray, real: np.ndarray) -> np.ndarray:
        """One call of @decode (seq 1) or @prefill (seq = chunk): row r's first real[r] tokens
        are its next ones; the rest are padding, which writes no cache slot (slot -1) and whose
        logits the caller drops. The causal mask (anchored at each row's kv length) keeps a real
        token from seeing the padding after it."""
        if self.ep > 1:
            self._together(True)
        return self._call(seq, ids, real)

    def _call(self, seq: int, ids: np.ndarray, real: np.ndarray) -> np.ndarray:
        block_size = self._build_args["block_size"]
        positions = self._positions[:, None] + np.arange(seq, dtype=np.int64)[None, :]
        rows = np.arange(self.batch)[:, None]
        slots = self.block_table[rows, positions // block_size].astype(np.int64) * block_size + positions % block_size
        slots[np.arange(seq)[None, :] >= real[:, None]] = -1          # padding: written nowhere
        if seq not in self._seqs:
            self._compile(seq)
        self._written = max(self._written, int(positions.max()) + 1)   # before the run: a failed one may write
        outputs = self._program.run(function=_function_name(seq), input_ids=ids,
                                    positions=positions, slot_mapping=slots, block_table=self.block_table,
                                    seq_lengths=self._positions + seq, **self._caches)
        self._positions += real
        return np.asarray(outputs[0], np.float32)


def check_length(prompt: int, max_new_tokens: int, max_positions: int):
    """ValueError when a prompt and its new tokens do not fit `max_positions`: each takes a
    position but the last new token (produced, never fed back)."""
    if prompt + max(max_new_tokens - 1, 0) > max_positions:
        raise ValueError(f"max_new_tokens: prompt {prompt} + {max_new_tokens} new tokens exceed "
                         f"max_positions {max_positions}")


class AutoCausalLM:
    """The causal LM of a Hugging Face checkpoint of any MLA family the compiler supports
    (docs/api.md section 13), the way transformers' Auto classes dispatch: config.json's
    model_type (else its architectures) names the family, whose description (families.py)
    the decoder is built from. A family that is not supported is refused before any tensor is
    read: CompileError naming the model type and what is missing [CKPT-FAMILY], or that it is
    not an MLA family the compiler knows [CKPT-CONFIG]."""

    def __init__(self, *args, **kwargs):
        raise TypeError("AutoCausalLM is built with AutoCausalLM.from_pretrained(path, ...)")

    @classmethod
    def from_pretrained(cls, path, **kwargs) -> CausalLM:
        """CausalLM.from_pretrained(path, **kwargs) for the checkpoint's family (its keywords)."""
        from . import checkpoint
        checkpoint.read_config(path)
        return CausalLM.from_pretrained(path, **kwargs)


def calibration_ids(calibration, vocab_size: int) -> np.ndarray:
    """The calibration prompt as int64 (rows, tokens): `calibration` token ids ((rows, tokens) or
    (tokens,), NumPy, a list or torch), or None: CALIBRATION_TOKENS ids drawn with a fixed seed."""
    if calibration is None:
        return np.random.default_rng(0).integers(0, vocab_size, (1, CALIBRATION_TOKENS), dtype=np.int64)
    ids = np.asarray(calibration.detach().cpu().numpy() if hasattr(calibration, "detach") else calibration)
    ids = ids[None] if ids.ndim == 1 else ids
    if ids.ndim != 2 or ids.size == 0 or not np.issubdtype(ids.dtype, np.integer) \
            or ids.min() < 0 or ids.max() >= vocab_size:
        raise ValueError(f"calibration: expected token ids in [0, {vocab_size}), (rows, tokens) or (tokens,), "
                         f"got {ids.dtype} {ids.shape}")
    return ids.astype(np.int64)


def calibrated_kv_scales(config: dict, weights: dict, ids: np.ndarray, built, **args) -> dict:
    """{layer: 127 / max |latent|}: the static int8 scale of each layer's latent cache, from the
    values the model itself writes. The checkpoint's w8a8 model (the same int8 weights, a bf16
    cache: what w8a8c8 quantizes, before any cache error) runs the calibration prompt `ids`
    (rows, tokens) from empty caches; each layer's largest |value| written then maps to 127, so
    the calibration tokens use the whole int8 range and later ones clip only beyond it (min-max
    calibration). A weights-only bound (checkpoint.kv_cache_scale) must allow for rows it cannot
    foresee and spends about half the range on them."""
    unquantized = {k: v for k, v in weights.items() if not re.search(r"\.self_attn\.(\d+\.)?kv_scale$", k)}
    lm = CausalLM(config, unquantized, batch=ids.shape[0], max_positions=ids.shape[1], quant="w8a8", **args)
    lm(ids)
    scales = {}
    from .families import attention_ids
    for i in attention_ids(config.get("layer_kind") or "pre_norm", built):
        largest = float(np.abs(np.asarray(lm._caches[f"kv_cache.{i}"], np.float32)).max())
        scales[i] = 127.0 / largest if largest > 0 else 1.0
    return scales


def kv_scales_by_layer(kv_scale, built) -> dict:
    """{layer: float} from `kv_scale`: one positive number for every layer built, or
    {layer index: number} naming each of them."""
    def number(v, what):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not 0 < v < np.inf:
            raise ValueError(f"kv_scale: expected a positive finite number{what}, got {v!r}")
        return float(v)
    if not isinstance(kv_scale, dict):
        return {i: number(kv_scale, " (or a dict by layer)") for i in built}
    if set(kv_scale) != set(built):
        raise ValueError(f"kv_scale: expected one scale for each layer built {list(built)}, "
                         f"got keys {sorted(kv_scale, key=str)}")
    return {i: number(kv_scale[i], f" for layer {i}") for i in built}


def _digest(a: np.ndarray) -> str:
    """An array's shape, dtype and bytes as a short text (what ranks compare)."""
    import hashlib
    a = np.ascontiguousarray(a)
    return f"{a.dtype}{list(a.shape)}:{hashlib.sha256(a.tobytes()).hexdigest()[:16]}"


def _as_mask(mask, shape) -> np.ndarray | None:
    """A transformers attention mask as bool (batch, tokens): 1 real, 0 padding, each row's
    real tokens contiguous. None stays None."""
    if mask is None:
        return None
    torch_in = type(mask).__module__.startswith("torch")
    m = np.asarray(mask.detach().cpu().numpy() if torch_in else mask)
    if m.ndim == 1:
        m = m[None]
    if m.shape != shape or not (np.isin(m, (0, 1)).all()):
        raise ValueError(f"attention_mask: expected 0/1 entries of input_ids' shape {shape}, got "
                         f"{m.dtype} {m.shape}")
    m = m.astype(bool)
    runs = np.count_nonzero(np.diff(m.astype(np.int8), axis=1, prepend=0) == 1, axis=1)
    if (runs > 1).any():
        r = int(np.flatnonzero(runs > 1)[0])
        raise ValueError(f"attention_mask: row {r} has padding between real tokens (left or right padding only)")
    return m


def _last_real(mask: np.ndarray) -> np.ndarray:
    """Each row's last real column."""
    return mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)


def _frozen(value):
    if isinstance(value, np.ndarray) and (value.flags.writeable or value.base is not None):
        value = np.array(value) if value.base is not None else value
        value.flags.writeable = False
    return value


def _function_name(seq: int) -> str:
    return "decode" if seq == 1 else f"prefill{seq}"


# --- checkpoint names ----------------------------------------------------------------------------

_EXPERT = re.compile(r"model\.layers\.(\d+)\.mlp\.experts\.(\d+)\.(gate_proj|up_proj|down_proj)\.weight(_scale)?$")


def checkpoint_names(config, layers, index, experts=None) -> set:
    """The checkpoint tensors the whole decoder of `layers` consumes, in the checkpoint's own
    form of the routed experts (per expert, or transformers 5's stacked gate_up_proj/down_proj),
    by the names of the config's family (families.blocks); `experts`: the routed experts this
    rank holds (default all: ep 1)."""
    experts = range(config.n_routed_experts or 0) if experts is None else experts
    from .checkpoint import attention_names
    from .decoder import moe_output_norm, router_names
    from .families import blocks, moe_prefix
    names = attention_names(config, layers) | {"model.embed_tokens.weight", "model.norm.weight"}
    if not config.tie_word_embeddings:
        names.add("lm_head.weight")
    c = config.build_config()
    dense = ("gate_proj", "up_proj", "down_proj")
    for i in layers:
        for block in blocks(config.layer_kind, i):
            names.add(block.post_norm)
            if not config.is_moe_layer(i) or config.layer_kind == "dual":
                names |= {block.mlp + p + ".weight" for p in dense}
        if not config.is_moe_layer(i):
            continue
        mlp = moe_prefix(i)
        names |= {n for n in router_names(c, i) if n}
        if mlp + "experts.gate_up_proj" in index:
            names |= {mlp + "experts.gate_up_proj", mlp + "experts.down_proj"}
        else:
            names |= {f"{mlp}experts.{e}.{p}.weight" for e in experts for p in dense}
        if config.n_shared_experts:
            names |= {f"{mlp}shared_experts.{p}.weight" for p in dense}
        if config.moe_output_norm:
            names.add(moe_output_norm(i))
    return names


def optional_names(config, layers) -> set:
    """Tensors of `layers` that a checkpoint of the family may leave out (transformers fills
    them with zeros: A.X-K1's e_score_correction_bias)."""
    from .families import FAMILIES, moe_prefix
    suffixes = FAMILIES[config.model_type].optional_tensors
    return {moe_prefix(i)[:-len("mlp.")] + s for i in layers if config.is_moe_layer(i) for s in suffixes}


def _blocks_by_cache(config, layers) -> dict:
    """cache index -> attention block of `layers` (families.blocks)."""
    from .families import blocks
    return {b.cache: b for i in layers for b in blocks(config.layer_kind, i)}


def _ignored(config, count, ep=1, rank=0):
    """What the decoder of the first `count` layers does not read: the model's later layers,
    what transformers holds but never computes with (families.unused), and with ep the other
    ranks' per-expert tensors."""
    from .families import unused
    from .sharding import holds
    beyond = _beyond(count, config.num_hidden_layers)
    return lambda name: beyond(name) or unused(config, name) or ep > 1 and not holds(
        name, config.n_routed_experts, ep, rank)


def _beyond(count, total):
    """Checkpoint tensors of the model's layers past the ones built (a model cut to its first
    layers); a layer past the model's own (`total`) is not skipped: CKPT-UNUSED names it."""
    def ignored(name):
        m = re.match(r"model\.layers\.(\d+)\.", name)
        return bool(m) and count <= int(m.group(1)) < total
    return ignored


def check_weight_memory(config, layers: int, quant, path):
    """Refuse before reading a checkpoint whose weights (for the layers built) cannot fit in
    the memory available: CompileError [CKPT-MEMORY] with the figures."""
    from .checkpoint import _error
    from .config_keys import available_memory, estimated_bytes, size_text
    need = estimated_bytes(config.build_config(), layers, quant)
    free = available_memory()
    if free is not None and need > free:
        raise _error(f"{path}: the weights of {layers} layer{'s' * (layers > 1)} need about {size_text(need)} "
                     f"({'int8' if quant in ('w8a8', 'w8a8c8') else 'bf16'}), {size_text(free)} of memory are "
                     f"available: build fewer (layers=N) or quant=\"w8a8\"", "CKPT-MEMORY")


def _held_experts(config, ep: int, rank: int) -> range:
    """The routed experts rank `rank` of `ep` holds (ep must divide them: a clear error else)."""
    from .sharding import ShardError, expert_range
    experts = config.n_routed_experts or 0
    if ep > 1 and not experts:
        raise ValueError(f"ep: {ep} ranks, but the checkpoint has no routed experts to split (use tp)")
    if ep == 1:
        return range(experts)
    try:
        return expert_range(experts, ep, rank)
    except ShardError as e:
        raise ValueError(str(e)) from None


def parallel_rank(tp: int, ep: int = 1) -> int:
    """This process's rank among the `tp` (or `ep`) ranks of the job torchrun started (tp and ep
    1: 0). The default process group is joined here (runtime/distributed.py, gloo, with its
    timeout)."""
    for name, value in (("tp", tp), ("ep", ep)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name}: expected an integer >= 1, got {value!r}")
    if tp > 1 and ep > 1:
        raise ValueError(f"tp {tp} with ep {ep}: not built (docs/parallel.md: expert parallelism runs attention "
                         "data-parallel; use one of them)")
    ranks, name = max(tp, ep), "ep" if ep > 1 else "tp"
    if ranks == 1:
        return 0
    from ..runtime.distributed import init_from_environment
    world = init_from_environment()
    if world.size != ranks:
        raise ValueError(f"{name}: {ranks} ranks, but this process is one of {world.size}: run it as one of {ranks} "
                         f"processes (torchrun --nproc-per-node {ranks} ...)")
    return world.rank


def stack_experts(weights: dict, config, layers, experts=None) -> dict:
    """Per-expert gate/up/down tensors -> transformers 5's stacked `experts.gate_up_proj`
    (E, 2I, He) and `experts.down_proj` (E, He, I), which the graph declares; under w8a8 their
    per-channel scales alike, `experts.gate_up_proj_scale` (E, 2I, 1) and
    `experts.down_proj_scale` (E, He, 1). `experts`: the routed experts loaded (a rank's own
    with ep; default all)."""
    out = {k: v for k, v in weights.items() if not _EXPERT.match(k)}
    for i in layers:
        mlp = f"model.layers.{i}.mlp.experts."
        if not config.is_moe_layer(i):
            continue
        if mlp + "gate_up_proj" in weights:      # LongCat's stacked form has rows for its identity experts
            for key in [k for k in out if k.startswith(mlp) and np.shape(out[k])[0] > config.n_routed_experts]:
                out[key] = out[key][:config.n_routed_experts]
            continue
        held = range(config.n_routed_experts) if experts is None else experts
        suffixes = ("weight", "weight_scale") if f"{mlp}{held[0]}.gate_proj.weight_scale" in weights else ("weight",)
        try:
            for suffix in suffixes:
                tail = suffix[len("weight"):]
                out[mlp + "gate_up_proj" + tail] = np.stack([np.concatenate(
                    [weights[f"{mlp}{e}.gate_proj.{suffix}"], weights[f"{mlp}{e}.up_proj.{suffix}"]], axis=0)
                    for e in held])
                out[mlp + "down_proj" + tail] = np.stack([weights[f"{mlp}{e}.down_proj.{suffix}"] for e in held])
        except KeyError as e:
            raise CompileError(f"checkpoint: {e.args[0]} missing (layer {i}'s routed experts)") from None
    return out
