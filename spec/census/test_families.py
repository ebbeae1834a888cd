"""Census records of the reference layers against bytes counted by hand.

Notation (per token, micro-batch 1): h hidden, a query heads, k KV heads, d head width,
I FFN width, V vocabulary, s tokens; b bytes of the model dtype (2 in bf16 and fp16).
`saved` is the part TP does not divide, `saved_tp` the part it does. Every expected
number below is a sum of listed tensors, each with the op that saves it.

Shared facts used throughout:
* Transformers' RMSNorm (Llama, Qwen, DeepSeek) on a bf16 row of width w keeps the fp32
  copy of its input (4w), rstd (4) and the normalised row cast back to bf16 (2w), so
  6w + 4; its output (2w) is kept by the projections that read it.
* RoPE keeps only the shared cos/sin tables (not counted); the rotated q and k are new.
* The flash kernel keeps q, k, v, its output and two fp32 statistics per query head and
  token (8a).
* The SwiGLU MLP keeps the gate (2I), silu(gate) (2I), up (2I) and the product (2I).
"""

import unittest

import torch

from census_helpers import kind_record, output_record, spec
from census_layers.attention import GQAttention
from census_layers.blocks import Build, rotary_tables, causal_mask

S = 64


def llama_dims(s):
    """h, a, k, d, I of a spec."""
    return (s["hidden_size"], s["num_attention_heads"], s["num_key_value_heads"],
            s["head_dim"], s["intermediate_size"])


class GPT2(unittest.TestCase):
    """Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
    Models": one GPT layer in fp16 with dropout keeps s*b*h*(34 + 5*a*s/h) bytes.

    Per token, the terms and the saved tensors that make them (measured on meta: torch
    1.13 has no fp16 LayerNorm or matmul on CPU):
      attention 11h + 5as:
        2h  LN1 output, kept by c_attn (attMM)
        6h  q, k, v: c_attn's output, one storage kept by QK^T (q, k) and by AV (v)
            (attBMM): Korthikanti's 4h for Q and K plus 2h for V
        2as softmax output (softmax)
        1as dropout mask on the probabilities, one byte each (dropout)
        2as dropped probabilities, kept by AV (attBMM)
        2h  c_proj input, the merged heads (attMM)
        1h  residual dropout mask (dropout)
      MLP 19h: 2h c_fc input (ffMM), 8h GeLU input (ffAct), 8h c_proj input (ffMM),
        1h dropout mask (dropout)
      norms 4h: LN1 and LN2 inputs (normOp)
    plus what Korthikanti leaves out: each LayerNorm also keeps its fp32 mean and rstd,
    8 bytes per token per norm, 16 in all (normOp).
    Under TP (Korthikanti's sbh(10 + 24/t + 5as/(ht))): 10h (norm inputs 4h, the two
    residual masks 2h, the c_attn and c_fc inputs 4h) and the norm statistics stay
    whole; q, k, v (6h), c_proj input (2h), GeLU input and output (16h) and the 5as
    score terms are divided.
    """

    def record(self, seq_len):
        """The GPT-2 layer's record in fp16 at seq_len tokens."""
        return kind_record(spec("gpt"), "decoder", seq_len=seq_len, dtype="fp16")

    def test_korthikanti_total(self):
        """saved + saved_tp = 34h + 5as + 16 at two lengths (the 5as term grows with s)."""
        s = spec("gpt")
        h, a = s["hidden_size"], s["num_attention_heads"]
        for seq_len in (32, 64):
            r = self.record(seq_len)
            self.assertEqual(r["saved"] + r["saved_tp"], 34 * h + 5 * a * seq_len + 16)

    def test_korthikanti_tp_split(self):
        """saved = 10h + 16, saved_tp = 24h + 5as."""
        s = spec("gpt")
        h, a = s["hidden_size"], s["num_attention_heads"]
        r = self.record(S)
        self.assertEqual((r["saved"], r["saved_tp"]), (10 * h + 16, 24 * h + 5 * a * S))

    def test_per_op(self):
        """The terms above by op."""
        s = spec("gpt")
        h, a = s["hidden_size"], s["num_attention_heads"]
        r = self.record(S)
        ops = {op: v for op, v in r["ops"].items() if v}
        ops_tp = {op: v for op, v in r["ops_tp"].items() if v}
        self.assertEqual(ops, {"normOp": 4 * h + 16, "attMM": 2 * h, "dropout": 2 * h,
                               "ffMM": 2 * h})
        self.assertEqual(ops_tp, {"attMM": 2 * h, "attBMM": 6 * h + 2 * a * S,
                                  "softmax": 2 * a * S, "dropout": a * S, "ffMM": 8 * h,
                                  "ffAct": 8 * h})


class Llama(unittest.TestCase):
    """A Llama layer in bf16 (h 64, a 4, k 2, d 16, I 96).

    Flash attention, by tensor:
      non-TP: input norm 6h + 4, its output 2h (q/k/v projections, attMM); post-attention
        norm 6h + 4, its output 2h (gate/up, ffMM): 16h + 8
      TP: q after RoPE 2ad, k after RoPE 2kd, v (the v projection's output) 2kd, the
        kernel output 2ad (also o_proj's input), statistics 8a (attBMM); gate, silu(gate),
        up 6I (ffAct); product 2I (down's input, ffMM): 4ad + 4kd + 8a + 8I
    """

    def test_flash(self):
        """saved = 16h + 8, saved_tp = 4ad + 4kd + 8a + 8I."""
        s = spec("llama")
        h, a, k, d, i = llama_dims(s)
        r = kind_record(s, "decoder")
        self.assertEqual(r["saved"], 16 * h + 8)
        self.assertEqual(r["saved_tp"], 4 * a * d + 4 * k * d + 8 * a + 8 * i)
        self.assertEqual(r["ops_tp"]["attBMM"], 4 * a * d + 4 * k * d + 8 * a)
        self.assertEqual(r["ops"]["normOp"], 2 * (6 * h + 4))

    def test_eager(self):
        """Eager attention with k = a/2: QK^T keeps q (2ad) and k repeated to a heads
        (2ad); softmax keeps its fp32 output (4as); AV keeps the bf16 probabilities (2as)
        and v repeated (2ad); o_proj keeps the merged heads (2ad):
        saved_tp = 8ad + 6as + 8I; saved as with flash. Measured at a 8, k 4, d 8: the
        TP-halved layer must keep 2 KV heads, since with a single KV head repeat_kv is
        a free view (no copy) and the halved layer would not be half the whole."""
        s = spec("llama", num_attention_heads=8, num_key_value_heads=4, head_dim=8)
        h, a, _k, d, i = llama_dims(s)
        r = kind_record(s, "decoder", eager=True)
        self.assertEqual(r["saved"], 16 * h + 8)
        self.assertEqual(r["saved_tp"], 8 * a * d + 6 * a * S + 8 * i)
        self.assertEqual(r["ops_tp"]["softmax"], 4 * a * S)

    def test_qk_norm_and_bias(self):
        """Qwen3's per-head QK-norm keeps per q head 6d + 4 and per KV head 6d + 4
        (RMSNorm of width d): + 6ad + 4a + 6kd + 4k, all TP; QKV biases keep nothing."""
        s = spec("llama", qk_norm=True, qkv_bias=True)
        h, a, k, d, i = llama_dims(s)
        r = kind_record(s, "decoder")
        self.assertEqual(r["saved"], 16 * h + 8)
        self.assertEqual(r["saved_tp"], 4 * a * d + 4 * k * d + 8 * a + 8 * i
                         + 6 * a * d + 4 * a + 6 * k * d + 4 * k)

    def test_selective(self):
        """HyperParallel's selective recompute: the norms and SwiGLU's act run again, so
        each norm keeps only its input (2h, held by its checkpoint) and its output (2h);
        GatedAct keeps its inputs gate and up (4I) but not silu(gate); the kernel stays:
        selective = 8h, selective_tp = 4ad + 4kd + 8a + 6I."""
        s = spec("llama")
        h, a, k, d, i = llama_dims(s)
        r = kind_record(s, "decoder")
        self.assertEqual(r["selective"], 8 * h)
        self.assertEqual(r["selective_tp"], 4 * a * d + 4 * k * d + 8 * a + 6 * i)

    def test_ops_add_up(self):
        """The per-op maps sum to saved and saved_tp."""
        r = kind_record(spec("llama"), "decoder")
        self.assertEqual(sum(r["ops"].values()), r["saved"])
        self.assertEqual(sum(r["ops_tp"].values()), r["saved_tp"])


class Qwen3NextFullAttention(unittest.TestCase):
    """Qwen3.5's full-attention layer, dense FFN (I 96): zero-centred RMSNorm, QK-norm,
    output gate.

    The zero-centred RMSNorm of a bf16 row of width w keeps fp32 x (4w), rstd (4), the
    fp32 normalised row (4w) and, once per layer, (1 + weight) in fp32 (4w bytes).
      non-TP: two norms 2 * (8h + 4) and their outputs 2 * 2h; per layer (1 + w) of the
        two norms (2 * 4h) and of the q and k norms (2 * 4d): 20h + 8 + (8h + 8d)/s
      TP: q norm 8ad + 4a, q after RoPE 2ad; k norm 8kd + 4k, k after RoPE 2kd, v 2kd;
        kernel output 2ad, statistics 8a; sigmoid(gate) 2ad; gated output (o_proj's
        input) 2ad; MLP 8I: 16ad + 12kd + 12a + 4k + 8I
    """

    def test_full_attention(self):
        """The sums above."""
        s = dense_qwen3_5()
        h, a, k, d, i = llama_dims(s)
        r = kind_record(s, "full_attention")
        self.assertEqual(r["saved"], 20 * h + 8 + (8 * h + 8 * d) / S)
        self.assertEqual(r["saved_tp"],
                         16 * a * d + 12 * k * d + 12 * a + 4 * k + 8 * i)


def dense_qwen3_5():
    """The Qwen3.5 fixture with a dense FFN of width 96."""
    return spec("qwen3_5", num_experts=None, num_experts_per_tok=None,
                moe_intermediate_size=None, shared_expert_intermediate_size=None,
                num_shared_experts=None, intermediate_size=96)


class LinearAttentionKernel(unittest.TestCase):
    """Qwen3.5's linear-attention layer with the delta rule as a fused kernel keeps it,
    dense FFN: h 64; n_k 2 key heads and n_v 4 value heads of widths d_k = d_v = 16;
    conv kernel K 4; c = 2 n_k d_k + n_v d_v conv channels; chunk C 64.
      non-TP: two zero-centred norms 2 * (8h + 4), their outputs 2 * 2h, per layer their
        (1 + w) 2 * 4h: 20h + 8 + 8h/s
      TP, by tensor:
        2c           in_proj_qkv output (the convolution's input)
        2c(s+K-1)/s  convolution output (SiLU's input, s + K - 1 positions)
        2c           SiLU output (v is a view of it, kept by the kernel)
        4 n_v d_k    q and k after the L2 norm, repeated to the value heads (kernel)
        8 n_v        their fp32 inverse norms (kernel)
        4 n_v        fp32 cumulative gate (kernel)
        2 n_v        beta = sigmoid(b) (kernel and sigmoid)
        2 n_v C      the chunk matrix row (kernel)
        8 n_v        softplus input and output, fp32 (the gate)
        16 n_v d_v + 4 n_v   the gated RMSNorm of width d_v (see blocks.GatedRMSNorm)
        2 n_v d_v    its output (out_proj's input)
        8I           MLP
        (8 n_v + 16 n_v)/s   per layer: exp(A_log) and its negation (fp32), and the two
                     int64 index tensors of repeat_interleave (q and k)
    """

    def test_kernel_delta_rule(self):
        """The sums above."""
        s = dense_qwen3_5()
        h, i = s["hidden_size"], s["intermediate_size"]
        nk, dk = s["linear_num_key_heads"], s["linear_key_head_dim"]
        nv, dv = s["linear_num_value_heads"], s["linear_value_head_dim"]
        kernel, chunk = s["linear_conv_kernel_dim"], 64
        c = 2 * nk * dk + nv * dv
        r = kind_record(s, "linear_attention", delta_rule="kernel")
        self.assertEqual(r["saved"], 20 * h + 8 + 8 * h / S)
        tp = (2 * c + 2 * c * (S + kernel - 1) / S + 2 * c + 4 * nv * dk + 8 * nv + 4 * nv
              + 2 * nv + 2 * nv * chunk + 8 * nv + 16 * nv * dv + 4 * nv + 2 * nv * dv + 8 * i
              + (8 * nv + 16 * nv) / S)
        self.assertEqual(r["saved_tp"], tp)

    def test_eager_rule_keeps_more(self):
        """Transformers' eager chunked rule keeps the row-by-row solve of every chunk:
        far more than the kernel (here over five times). Its non-TP part adds only the
        two C x C bool masks it makes and masked_fill keeps (2 C^2 bytes per layer)."""
        s = dense_qwen3_5()
        eager = kind_record(s, "linear_attention")
        kernel = kind_record(s, "linear_attention", delta_rule="kernel")
        self.assertGreater(eager["saved_tp"], 5 * kernel["saved_tp"])
        self.assertEqual(eager["saved"], kernel["saved"] + 2 * 64 * 64 / S)


class MoE(unittest.TestCase):
    """Routed experts: each of a token's top-k (token, expert) pairs keeps the same
    bytes, so the record grows by one pair's bytes per unit of top-k. One pair keeps:
    non-TP 4h + 38: gathered input 2h, down output 2h, sorted weight 2, three int64
    indices 24 (token, order, inverse order), the router's top-k index 8 and fp32 value
    4 (Qwen: top-k; DeepSeek: gather and the chosen score); TP 8I (I = expert width):
    gate_up output 4I, silu(gate) 2I, product 2I."""

    def pair_bytes(self, s):
        """(non-TP, TP) bytes of one (token, expert) pair."""
        return 4 * s["hidden_size"] + 38, 8 * s["moe_intermediate_size"]

    def growth(self, name, kind):
        """Records at top-k 1, 2, 3 differenced."""
        recs = [kind_record(spec(name, num_experts_per_tok=k), kind) for k in (1, 2, 3)]
        return [(b["saved"] - a["saved"], b["saved_tp"] - a["saved_tp"])
                for a, b in zip(recs, recs[1:])]

    def test_qwen_routed_part_scales_with_top_k(self):
        """Qwen3-MoE: +pair per top-k."""
        pair = self.pair_bytes(spec("qwen3_moe"))
        self.assertEqual(self.growth("qwen3_moe", "decoder"), [pair, pair])

    def test_deepseek_routed_part_scales_with_top_k(self):
        """DeepSeek-V3 MoE kind: +pair per top-k."""
        pair = self.pair_bytes(spec("deepseek_v3"))
        self.assertEqual(self.growth("deepseek_v3", "moe"), [pair, pair])


class DeepSeekMLA(unittest.TestCase):
    """DeepSeek-V3's dense kind (first_k_dense): MLA with q_lora_rank r_q 32,
    kv_lora_rank c 16, rope r 8, nope n 16, v width v 16, a 4 heads; dense MLP I 96.
      non-TP: the two layer norms and their outputs 16h + 8 (as Llama); q_a_layernorm
        6r_q + 4 and its output 2r_q (q_b_proj's input); kv_a_layernorm 6c + 4 and its
        output 2c (kv_b_proj's input): 16h + 8 + 8r_q + 4 + 8c + 4
      TP: query = cat(q_nope, q_rope) 2a(n + r), key = cat(k_nope, k_rope) 2a(n + r),
        value: a view of kv_b_proj's whole output 2a(n + v), kernel output 2av,
        statistics 8a; MLP 8I
    """

    def test_dense_kind(self):
        """The sums above."""
        s = spec("deepseek_v3")
        h, a, i = s["hidden_size"], s["num_attention_heads"], s["intermediate_size"]
        rq, c = s["q_lora_rank"], s["kv_lora_rank"]
        n, r, v = s["qk_nope_head_dim"], s["qk_rope_head_dim"], s["v_head_dim"]
        rec = kind_record(s, "dense")
        self.assertEqual(rec["saved"], 16 * h + 8 + 8 * rq + 4 + 8 * c + 4)
        self.assertEqual(rec["saved_tp"],
                         4 * a * (n + r) + 2 * a * (n + v) + 2 * a * v + 8 * a + 8 * i)

    def test_kinds_are_measured_once_each(self):
        """dense and moe differ only in the feed-forward; the MTP group is skipped."""
        from census_layers.spec import kinds_to_measure
        self.assertEqual([k for k, _ in kinds_to_measure(spec("deepseek_v3"))], ["dense", "moe"])


class OutputLayer(unittest.TestCase):
    """Final norm, h x V head, loss with fp32 logits; TP over half the vocabulary.
    Keeps: the norm (Llama: 6h + 4) and its output 2h (the head's input); the shifted
    labels, a view of the labels padded by one (8(s + 1)/s, int64); the fp32
    log-probabilities 4V (TP). The backward peaks in log_softmax's backward, holding the
    log-probabilities, their gradient and the logits' gradient, all fp32: 12V (TP)."""

    def test_llama_output(self):
        """saved = 8h + 4 + 8(s + 1)/s, saved_tp = 4V, working_tp = 12V."""
        s = spec("llama")
        h, v = s["hidden_size"], s["vocab_size"]
        r = output_record(s)
        self.assertEqual(r["saved"], 8 * h + 4 + 8 * (S + 1) / S)
        self.assertEqual(r["saved_tp"], 4 * v)
        self.assertEqual(r["working_tp"], 12 * v)

    def test_gpt_output(self):
        """GPT-2 (fp16): LayerNorm keeps its input 2h and fp32 mean and rstd (8), its
        output 2h is the head's input: saved = 4h + 8 + 8(s + 1)/s, saved_tp = 4V."""
        s = spec("gpt")
        h, v = s["hidden_size"], s["vocab_size"]
        r = output_record(s, dtype="fp16")
        self.assertEqual(r["saved"], 4 * h + 8 + 8 * (S + 1) / S)
        self.assertEqual(r["saved_tp"], 4 * v)

    def test_odd_vocabulary(self):
        """An odd V is split by its measured share (V//2 of V): saved_tp stays 4V."""
        s = spec("llama", vocab_size=255)
        r = output_record(s)
        self.assertAlmostEqual(r["saved_tp"], 4 * 255, places=6)


class MetaEqualsReal(unittest.TestCase):
    """The meta-device census (shapes only) equals the census with real tensors on CPU,
    for every family at the fixture dims (bf16; GPT-2 in fp32, which CPU kernels run)."""

    CASES = (("llama", "decoder", "bf16"), ("qwen3_moe", "decoder", "bf16"),
             ("deepseek_v3", "dense", "bf16"), ("deepseek_v3", "moe", "bf16"),
             ("qwen3_5", "full_attention", "bf16"), ("qwen3_5", "linear_attention", "bf16"),
             ("gpt", "decoder", "fp32"))

    def test_layers(self):
        """Every field of every kind's record."""
        for name, kind, dtype in self.CASES:
            with self.subTest(model=name, kind=kind):
                real = kind_record(spec(name), kind, dtype=dtype, device="cpu")
                meta = kind_record(spec(name), kind, dtype=dtype, device="meta")
                self.assertEqual(real, meta)

    def test_eager_kernel_and_output(self):
        """Eager attention, the kernel delta rule and the output layer."""
        s = spec("qwen3_moe")
        self.assertEqual(kind_record(s, "decoder", device="cpu", eager=True),
                         kind_record(s, "decoder", device="meta", eager=True))
        s5 = spec("qwen3_5")
        self.assertEqual(kind_record(s5, "linear_attention", device="cpu", delta_rule="kernel"),
                         kind_record(s5, "linear_attention", device="meta", delta_rule="kernel"))
        self.assertEqual(output_record(s, device="cpu"), output_record(s, device="meta"))


class FlashKernel(unittest.TestCase):
    """The flash stand-in computes attention: its output equals eager attention's."""

    def test_matches_eager(self):
        """Same weights, fp32 on CPU, causal GQA with RoPE."""
        dims = {"hidden": 32, "heads": 4, "kv_heads": 2, "head_dim": 8}
        outs = []
        for eager in (False, True):
            build = Build("cpu", torch.float32, eager)
            torch.manual_seed(1)
            attn = GQAttention(build, dims)
            cos, sin = rotary_tables(build, 12, 8)
            consts = {"cos8": cos, "sin8": sin, "mask": causal_mask(build, 12)}
            torch.manual_seed(2)
            outs.append(attn(torch.randn(1, 12, 32), consts))
        torch.testing.assert_close(outs[0], outs[1], rtol=1e-4, atol=1e-5)


if __name__ == "__main__":
    unittest.main()
